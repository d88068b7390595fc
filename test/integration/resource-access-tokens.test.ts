import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSecret } from '../../src/services/users/secrets.js';
import { addMember, createGroup, createProject, createUser, tokenFor, type TestGroup, type TestUser } from '../helpers/factories.js';

/** The date `days` days from now (YYYY-MM-DD). */
const daysFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
import { startSite, type TestSite } from '../helpers/site.js';

/** Project and group access tokens with their bot users, and personal access token rotation (issue 26, item 7). */
describe('project and group access tokens', () => {
  let site: TestSite;
  let owner: TestUser;
  let maintainer: TestUser;
  let developer: TestUser;
  let outsider: TestUser;
  let project: any;
  let group: TestGroup;

  beforeAll(async () => {
    site = await startSite();
    [owner, maintainer, developer, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site)]);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMember(site, 'projects', project.id, maintainer, 40, owner.token);
    await addMember(site, 'projects', project.id, developer, 30, owner.token);
    group = await createGroup(site, {}, owner.token);
  });
  afterAll(() => site?.stop());

  const tokens = (kind = 'projects', id = project.id) => `/${kind}/${id}/access_tokens`;

  it('creates a token with a bot member at the access level; the secret is answered once, kept as a digest, and authenticates as the bot', async () => {
    const created = await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { name: 'ci bot', scopes: ['api'], access_level: 30, expires_at: daysFromNow(400) } });
    expect(created.status, created.text).toBe(400);
    expect(created.body.message.expires_at[0]).toMatch(/^must be before \d{4}-\d\d-\d\d$/);

    const made = await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { name: 'ci bot', scopes: ['api', 'read_repository'], access_level: 30 } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: 'ci bot', scopes: ['api', 'read_repository'], access_level: 30, revoked: false, active: true, last_used_at: null });
    expect(made.body.token).toMatch(/^glpat-/);
    // Without expires_at GitLab 17 sets the longest lifetime (a year).
    const inAYear = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);
    expect(made.body.expires_at).toBe(inAYear);
    const stored = site.site.db.prepare('SELECT token_digest FROM personal_access_tokens WHERE id = ?').get(made.body.id) as { token_digest: string };
    expect(stored.token_digest).toBe(digestSecret(made.body.token));

    const me = await site.api('/user', { as: made.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: made.body.user_id, name: 'ci bot', bot: true });
    expect(me.body.username).toMatch(new RegExp(`^project_${project.id}_bot_[0-9a-f]{32}$`));
    expect(me.body.email).toMatch(/@noreply\.127\.0\.0\.1$/);
    expect((await site.api(`/users/${owner.id}`, { as: owner.token })).body.bot).toBe(false);
    const member = await site.api(`/projects/${project.id}/members/${made.body.user_id}`, { as: owner.token });
    expect(member.body).toMatchObject({ id: made.body.user_id, access_level: 30, expires_at: inAYear });
    // The bot acts at its level: a developer reads the private project and may not change its settings.
    expect((await site.api(`/projects/${project.id}`, { as: made.body.token })).status).toBe(200);
    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', as: made.body.token, body: { description: 'x' } })).status).toBe(403);

    const listed = await site.api(tokens(), { as: maintainer.token });
    expect(listed.status).toBe(200);
    expect(listed.headers['x-total']).toBe('1');
    expect(listed.body).toEqual([{ ...made.body, token: undefined }].map(({ token: _token, ...rest }) => rest));
    const shown = await site.api(`${tokens()}/${made.body.id}`, { as: owner.token });
    expect(shown.body).toMatchObject({ id: made.body.id, access_level: 30 });
    expect(shown.body.token).toBeUndefined();
  });

  it('answers the error rows: 401, 404, 400 parameters and permission, 401 reads for non-maintainers', async () => {
    const body = { name: 'x', scopes: ['api'] };
    expect((await site.api(tokens(), { method: 'POST', as: null, body })).status).toBe(401);
    expect((await site.api(tokens(), { as: null })).status).toBe(401);
    expect((await site.api(tokens(), { method: 'POST', as: outsider.token, body })).body).toEqual({ message: '404 Project Not Found' });
    expect((await site.api(tokens(), { as: outsider.token })).status).toBe(404);
    expect((await site.api(tokens(), { as: developer.token })).status).toBe(401);
    const refused = await site.api(tokens(), { method: 'POST', as: developer.token, body });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: '400 Bad request - User does not have permission to create project access token' });
    expect((await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { scopes: ['api'] } })).body).toEqual({ message: 'name is missing' });
    expect((await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { name: 'x', scopes: ['everything'] } })).body).toEqual({ message: 'scopes does not have a valid value' });
    expect((await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { ...body, access_level: 50 } })).body).toEqual({ message: 'access_level does not have a valid value' });
    expect((await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { ...body, expires_at: '2001-01-01' } })).body).toEqual({ message: { expires_at: ['must be in the future'] } });
    expect((await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { ...body, expires_at: 'soon' } })).status).toBe(400);
    expect((await site.api(`${tokens()}/abc`, { as: maintainer.token })).status).toBe(400);
    expect((await site.api(`${tokens()}/999999`, { as: maintainer.token })).body).toEqual({ message: '404 Could not find project access token with token_id: 999999 Not Found' });
    // A maintainer's own personal token is not the project's.
    const personal = site.site.db.prepare('SELECT id FROM personal_access_tokens WHERE user_id = ?').pluck().get(maintainer.id) as number;
    expect((await site.api(`${tokens()}/${personal}`, { as: maintainer.token })).status).toBe(404);
    expect((await site.api(`${tokens()}/${personal}`, { method: 'DELETE', as: maintainer.token })).status).toBe(404);
  });

  it('rotates a token (old one revoked, new one for the same bot, a week by default) and revokes it with its bot', async () => {
    const made = (await site.api(tokens(), { method: 'POST', as: maintainer.token, body: { name: 'rotating', scopes: ['read_api'], access_level: 20 } })).body;
    // read_api reads and may not write.
    expect((await site.api(`/projects/${project.id}/issues`, { as: made.token })).status).toBe(200);
    expect((await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: made.token, body: { title: 't' } })).status).toBe(403);
    expect((await site.api(`${tokens()}/${made.id}/rotate`, { method: 'POST', as: developer.token, body: {} })).status).toBe(401);
    const rotated = await site.api(`${tokens()}/${made.id}/rotate`, { method: 'POST', as: maintainer.token, body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    expect(rotated.body).toMatchObject({ name: 'rotating', scopes: ['read_api'], access_level: 20, user_id: made.user_id, expires_at: inAWeek, active: true });
    expect(rotated.body.id).not.toBe(made.id);
    expect((await site.api('/user', { as: made.token })).status).toBe(401);
    expect((await site.api('/user', { as: rotated.body.token })).body.id).toBe(made.user_id);
    expect((await site.api(`${tokens()}/${made.id}`, { as: maintainer.token })).body).toMatchObject({ revoked: true, active: false });
    expect((await site.api(`${tokens()}?state=active`, { as: maintainer.token })).body.map((t: any) => t.id)).not.toContain(made.id);
    expect((await site.api(`${tokens()}?state=inactive`, { as: maintainer.token })).body.map((t: any) => t.id)).toContain(made.id);
    expect((await site.api(`${tokens()}/${made.id}/rotate`, { method: 'POST', as: maintainer.token, body: {} })).body).toEqual({ message: '400 Bad request - Token already revoked' });

    expect((await site.api(`${tokens()}/${rotated.body.id}`, { method: 'DELETE', as: developer.token })).status).toBe(400);
    expect((await site.api(`${tokens()}/${rotated.body.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await site.api('/user', { as: rotated.body.token })).status).toBe(401);
    expect((await site.api(`/users/${made.user_id}`, { as: owner.token })).status).toBe(404);
    expect((await site.api(`${tokens()}/${rotated.body.id}`, { as: maintainer.token })).status).toBe(404);
  });

  it('makes group tokens for owners, owner level included, their bot a group member', async () => {
    await addMember(site, 'groups', group.id, maintainer, 40, owner.token);
    expect((await site.api(tokens('groups', group.id), { as: maintainer.token })).status).toBe(401);
    const made = await site.api(tokens('groups', group.id), { method: 'POST', as: owner.token, body: { name: 'group bot', scopes: ['api'], access_level: 50, expires_at: daysFromNow(30) } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ access_level: 50, expires_at: daysFromNow(30) });
    const me = (await site.api('/user', { as: made.body.token })).body;
    expect(me.username).toMatch(new RegExp(`^group_${group.id}_bot_[0-9a-f]{32}$`));
    expect((await site.api(`/groups/${group.id}/members/${me.id}`, { as: owner.token })).body.access_level).toBe(50);
    expect((await site.api(tokens('groups', group.id), { as: owner.token })).body.map((t: any) => t.id)).toEqual([made.body.id]);
    expect((await site.api(tokens('groups', 999999), { as: owner.token })).status).toBe(404);
  });
});

describe('personal access token rotation', () => {
  let site: TestSite;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    site = await startSite();
    [alice, bob] = await Promise.all([createUser(site), createUser(site)]);
  });
  afterAll(() => site?.stop());

  it('rotates the caller own token by id or as self, 404 for another user, 400 once revoked', async () => {
    const made = (await site.api(`/users/${alice.id}/personal_access_tokens`, { method: 'POST', body: { name: 'script', scopes: ['api'] } })).body;
    expect((await site.api(`/personal_access_tokens/${made.id}/rotate`, { method: 'POST', as: bob.token, body: {} })).body).toEqual({ message: '404 Not found' });
    expect((await site.api(`/personal_access_tokens/${made.id}/rotate`, { method: 'POST', as: null, body: {} })).status).toBe(401);
    expect((await site.api(`/personal_access_tokens/${made.id}/rotate`, { method: 'POST', as: alice.token, body: { expires_at: 'never' } })).status).toBe(400);
    const rotated = await site.api(`/personal_access_tokens/${made.id}/rotate`, { method: 'POST', as: alice.token, body: { expires_at: daysFromNow(60) } });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ name: 'script', scopes: ['api'], user_id: alice.id, expires_at: daysFromNow(60), active: true });
    expect((await site.api(`/personal_access_tokens/${made.id}/rotate`, { method: 'POST', as: alice.token, body: {} })).status).toBe(400);
    expect((await site.api('/user', { as: made.token })).status).toBe(401);

    const self = await site.api('/personal_access_tokens/self/rotate', { method: 'POST', as: rotated.body.token, body: {} });
    expect(self.status, self.text).toBe(200);
    expect((await site.api('/personal_access_tokens/self', { as: self.body.token })).body).toMatchObject({ id: self.body.id, user_id: alice.id });
    expect((await site.api('/user', { as: rotated.body.token })).status).toBe(401);
  });

  it('lets a self_rotate token rotate itself and nothing else', async () => {
    const token = tokenFor(site, bob.id, ['self_rotate']);
    expect((await site.api('/user', { as: token })).status).toBe(403);
    const rotated = await site.api('/personal_access_tokens/self/rotate', { method: 'POST', as: token, body: {} });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ scopes: ['self_rotate'], user_id: bob.id, expires_at: daysFromNow(7) });
  });
});
