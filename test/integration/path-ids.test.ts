import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Numeric path ids are read by pathId route guards, where GitLab's Grape validates them: after
 * sign-in (401) and before the endpoint finds (404) or authorizes (403), unless the family
 * authorizes in a `before` block (hooks, deploy keys, Geo nodes, tokens), which runs ahead of the
 * validation, or does not declare the id (GET /keys/:id). A request with a bad id and a second fault answers what GitLab answers first.
 */
let site: TestSite;
let user: TestUser;
let project: { id: number };

beforeAll(async () => {
  site = await startSite();
  user = await createUser(site);
  project = await createProject(site, { visibility: 'private' });
});
afterAll(() => site.stop());

describe('a bad numeric path id', () => {
  it('answers 401 to anonymous callers before it is read', async () => {
    for (const [method, path] of [['PUT', '/users/abc'], ['GET', '/user/keys/abc'], ['POST', '/projects/user/abc'], ['DELETE', `/projects/${project.id}/share/abc`]]) {
      const response = await site.api(path!, { method, as: null, body: {} });
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it('answers 400 before admin-only endpoints refuse a signed-in non-admin (users.rb, projects.rb authorize in the endpoint)', async () => {
    for (const [method, path, name] of [
      ['PUT', '/users/abc', 'id'],
      ['POST', '/users/abc/block', 'id'],
      ['GET', '/users/1/gpg_keys/abc', 'key_id'],
      ['POST', '/users/abc/emails', 'id'],
      ['POST', '/projects/user/abc', 'user_id'],
    ]) {
      const response = await site.api(path!, { method, as: user.token, body: {} });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.body).toEqual({ message: `${name} is invalid` });
    }
  });

  it('answers 400 before the project is found (a share of a project the caller cannot see)', async () => {
    const response = await site.api(`/projects/${project.id}/share/abc`, { method: 'DELETE', as: user.token });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'group_id is invalid' });
  });

  it('is read after authorization where GitLab authorizes in a before block', async () => {
    for (const [method, path, status] of [
      ['GET', `/projects/${project.id}/hooks/abc`, 404],
      ['PUT', `/projects/${project.id}/deploy_keys/abc`, 404],
      ['GET', '/geo_nodes/abc', 403],
      ['POST', '/users/abc/impersonation_tokens', 403],
      ['GET', '/users/abc/custom_attributes', 403],
      // keys.rb declares no `id` on GET /keys/:id: authenticated_as_admin! is the first check after sign-in.
      ['GET', '/keys/abc', 403],
    ] as const) {
      const response = await site.api(path, { method, as: user.token, body: {} });
      expect(response.status, `${method} ${path}`).toBe(status);
    }
  });

  it('comes before the body parameters declared after it', async () => {
    for (const [method, path, name] of [
      ['PUT', `/projects/${project.id}/hooks/abc`, 'hook_id'],
      ['PUT', `/projects/${project.id}/deploy_keys/abc`, 'key_id'],
      ['POST', '/users/abc/keys', 'id'],
      ['POST', '/users/abc/personal_access_tokens', 'user_id'],
      ['POST', '/geo_nodes/abc/promote', 'id'],
    ]) {
      const response = await site.api(path!, { method, body: { force: 'x' } });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(response.body).toEqual({ message: `${name} is invalid` });
    }
  });

  it('names GitLab’s parameter: impersonation_token_id', async () => {
    const response = await site.api('/users/1/impersonation_tokens/abc');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'impersonation_token_id is invalid' });
  });
});

describe('body and query parameters of admin-only user endpoints', () => {
  it('are validated (400) before a signed-in non-admin is refused (403), as users.rb authorizes in the endpoint', async () => {
    for (const [method, path, message] of [
      ['POST', '/users', 'email is missing'],
      ['POST', '/users/1/keys', 'title is missing'],
      ['POST', '/users/1/gpg_keys', 'key is missing'],
      ['POST', '/users/1/emails', 'email is missing'],
      ['DELETE', '/users/1?hard_delete=maybe', 'hard_delete is invalid'],
      ['GET', '/user/activities?per_page=abc', 'per_page is invalid'],
    ]) {
      const response = await site.api(path!, { method, as: user.token, body: method === 'GET' ? undefined : {} });
      expect(response.status, `${method} ${path}: ${response.text}`).toBe(400);
      expect(response.body.message, `${method} ${path}`).toContain(message);
    }
    const wellFormed = await site.api('/users/1/keys', { method: 'POST', as: user.token, body: { title: 't', key: 'k' } });
    expect(wellFormed.status).toBe(403);
    expect((await site.api('/users', { method: 'POST', as: null, body: {} })).status).toBe(401);
  });
});
