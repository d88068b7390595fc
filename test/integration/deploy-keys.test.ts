import sshpk from 'sshpk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertSshKey } from '../../src/db/tables/ssh-keys.js';
import { fillMd5Fingerprints } from '../../src/services/users/ssh-keys.js';
import { addMembers, createProject, createUser, createUsers, type TestUser } from '../helpers/factories.js';
import { sshPublicKey } from '../helpers/keys.js';
import { startSite, type TestSite } from '../helpers/site.js';

const fingerprints = (key: string) => {
  const parsed = sshpk.parseKey(key, 'ssh');
  return { md5: parsed.fingerprint('md5').toString(), sha256: parsed.fingerprint('sha256').toString() };
};

describe('deploy keys', () => {
  let site: TestSite;
  let owner: TestUser, maintainer: TestUser, developer: TestUser, stranger: TestUser;
  let project: any;
  let other: any;

  beforeAll(async () => {
    site = await startSite();
    [owner, maintainer, developer, stranger] = await createUsers(site, 4);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    other = await createProject(site, { visibility: 'private' }, owner.token);
    await addMembers(site, 'projects', project.id, [[maintainer, 40], [developer, 30]], owner.token);
  });

  afterAll(async () => {
    await site?.stop();
  });

  const keys = (p: { id: number }) => `/projects/${p.id}/deploy_keys`;

  it('adds a key with can_push, lists it with both fingerprints, reads it, and answers the same key when it is added again', async () => {
    const key = sshPublicKey('ci@builder');
    const created = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'CI', key, can_push: true } });
    expect(created.status).toBe(201);
    const { md5, sha256 } = fingerprints(key);
    expect(created.body).toMatchObject({ title: 'CI', key, can_push: true, fingerprint: md5, fingerprint_sha256: sha256.slice('SHA256:'.length), expires_at: null });
    expect(typeof created.body.id).toBe('number');

    const list = await site.api(keys(project), { as: maintainer.token });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('1');
    expect(list.body).toEqual([created.body]);
    expect((await site.api(`${keys(project)}/${created.body.id}`, { as: owner.token })).body).toEqual(created.body);

    const again = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'other title', key } });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(created.body.id);
  });

  it('updates title and can_push (PUT), 400 with neither', async () => {
    const created = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'deploy', key: sshPublicKey() } });
    expect(created.body.can_push).toBe(false);
    const edited = await site.api(`${keys(project)}/${created.body.id}`, { method: 'PUT', as: maintainer.token, body: { title: 'renamed', can_push: true } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: created.body.id, title: 'renamed', can_push: true });
    // Another maintainer may switch can_push, but the title belongs to whoever added the key.
    const byOwner = await site.api(`${keys(project)}/${created.body.id}`, { method: 'PUT', as: owner.token, body: { title: 'not mine', can_push: false } });
    expect(byOwner.body).toMatchObject({ title: 'renamed', can_push: false });
    const neither = await site.api(`${keys(project)}/${created.body.id}`, { method: 'PUT', as: maintainer.token, body: {} });
    expect(neither.status).toBe(400);
  });

  it('enables a key of another project the caller maintains, and refuses one the caller cannot reach (404)', async () => {
    const key = await site.api(keys(other), { method: 'POST', as: owner.token, body: { title: 'shared', key: sshPublicKey() } });
    expect(key.status).toBe(201);
    const enabled = await site.api(`${keys(project)}/${key.body.id}/enable`, { method: 'POST', as: owner.token });
    expect(enabled.status).toBe(201);
    expect(enabled.body).toMatchObject({ id: key.body.id, title: 'shared' });
    expect(enabled.body.can_push).toBeUndefined();
    expect((await site.api(`${keys(project)}/${key.body.id}`, { as: owner.token })).body.can_push).toBe(false);

    // The maintainer of `project` is no member of `other`: its key is out of reach.
    const hidden = await site.api(keys(other), { method: 'POST', as: owner.token, body: { title: 'hidden', key: sshPublicKey() } });
    const refused = await site.api(`${keys(project)}/${hidden.body.id}/enable`, { method: 'POST', as: maintainer.token });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ message: '404 Deploy Key Not Found' });
    expect((await site.api(`${keys(project)}/999999/enable`, { method: 'POST', as: maintainer.token })).status).toBe(404);
  });

  it('GET /keys?fingerprint= finds a deploy key too, with deploy_keys_projects (admins only)', async () => {
    const key = sshPublicKey('finder@builder');
    const created = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'Finder', key, can_push: true } });
    expect(created.status).toBe(201);
    const enabled = await site.api(`${keys(other)}/${created.body.id}/enable`, { method: 'POST', as: owner.token });
    expect(enabled.status).toBe(201);
    const { md5, sha256 } = fingerprints(key);
    for (const fingerprint of [sha256, `MD5:${md5}`]) {
      const found = await site.api(`/keys?fingerprint=${encodeURIComponent(fingerprint)}`);
      expect(found.status).toBe(200);
      expect(found.body).toMatchObject({ id: created.body.id, title: 'Finder', key, fingerprint: md5, user: { id: maintainer.id, username: maintainer.username } });
      expect(found.body.deploy_keys_projects).toEqual([
        { id: expect.any(Number), deploy_key_id: created.body.id, project_id: project.id, can_push: true, created_at: expect.any(String), updated_at: expect.any(String) },
        { id: expect.any(Number), deploy_key_id: created.body.id, project_id: other.id, can_push: false, created_at: expect.any(String), updated_at: expect.any(String) },
      ]);
    }
    expect((await site.api(`/keys?fingerprint=${encodeURIComponent(sha256)}`, { as: maintainer.token })).status).toBe(403);
    expect((await site.api(`/keys?fingerprint=${encodeURIComponent(sha256)}`, { as: null })).status).toBe(401);
    const missing = await site.api(`/keys?fingerprint=${encodeURIComponent(fingerprints(sshPublicKey()).sha256)}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Key Not Found' });
  });

  it('keeps fingerprints unique across account keys and deploy keys', async () => {
    const key = sshPublicKey();
    expect((await site.api('/user/keys', { method: 'POST', as: stranger.token, body: { title: 'mine', key } })).status).toBe(201);
    const taken = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'dup', key } });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({ message: { fingerprint: ['has already been taken'] } });

    const deploy = sshPublicKey();
    expect((await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'd', key: deploy } })).status).toBe(201);
    expect((await site.api('/user/keys', { method: 'POST', as: stranger.token, body: { title: 'mine too', key: deploy } })).status).toBe(400);
  });

  it('removes a key from a project (204); a key no project uses is gone, a shared one stays', async () => {
    const solo = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'solo', key: sshPublicKey() } });
    expect((await site.api(`${keys(project)}/${solo.body.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await site.api(`${keys(project)}/${solo.body.id}`, { method: 'DELETE', as: maintainer.token })).body).toEqual({ message: '404 Deploy Key Not Found' });
    const all = await site.api('/deploy_keys?per_page=100');
    expect(all.body.map((k: any) => k.id)).not.toContain(solo.body.id);

    const shared = await site.api(keys(other), { method: 'POST', as: owner.token, body: { title: 'shared2', key: sshPublicKey() } });
    await site.api(`${keys(project)}/${shared.body.id}/enable`, { method: 'POST', as: owner.token });
    expect((await site.api(`${keys(project)}/${shared.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`${keys(other)}/${shared.body.id}`, { as: owner.token })).status).toBe(200);
  });

  it('deletes the keys only a deleted project used, and keeps those another project still has', async () => {
    const doomed = await createProject(site, { visibility: 'private' }, owner.token);
    const own = await site.api(keys(doomed), { method: 'POST', as: owner.token, body: { title: 'only here', key: sshPublicKey() } });
    const shared = await site.api(keys(other), { method: 'POST', as: owner.token, body: { title: 'also on other', key: sshPublicKey() } });
    expect((await site.api(`${keys(doomed)}/${shared.body.id}/enable`, { method: 'POST', as: owner.token })).status).toBe(201);
    expect((await site.api(`/projects/${doomed.id}`, { method: 'DELETE', as: owner.token })).status).toBe(202);
    const ids = (await site.api('/deploy_keys?per_page=100')).body.map((k: any) => k.id);
    expect(ids).not.toContain(own.body.id);
    expect(ids).toContain(shared.body.id);
  });

  it('answers the error rows: 400 key and parameters, 401, 403 below maintainer, 404 outsiders and missing keys; GET /deploy_keys for admins', async () => {
    const bad = await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { title: 'bad', key: 'ssh-rsa nonsense' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message.key).toEqual(['is invalid']);
    expect((await site.api(keys(project), { method: 'POST', as: maintainer.token, body: { key: sshPublicKey() } })).body).toEqual({ message: 'title is missing' });
    expect((await site.api(keys(project), { as: null })).status).toBe(401);
    expect((await site.api(keys(project), { as: developer.token })).status).toBe(403);
    expect((await site.api(keys(project), { as: stranger.token })).status).toBe(404);
    expect((await site.api(`${keys(project)}/999999`, { as: maintainer.token })).body).toEqual({ message: '404 Not found' });
    expect((await site.api(`${keys(project)}/abc`, { as: maintainer.token })).status).toBe(400);

    expect((await site.api('/deploy_keys', { as: null })).status).toBe(401);
    expect((await site.api('/deploy_keys', { as: maintainer.token })).status).toBe(403);
    const all = await site.api('/deploy_keys');
    expect(all.status).toBe(200);
    expect(all.body.length).toBeGreaterThan(3);
    expect(all.body[0]).toHaveProperty('fingerprint_sha256');
    expect((await site.api('/deploy_keys?public=true')).body).toEqual([]);
  });
});

describe('GET /keys by id and by fingerprint', () => {
  let site: TestSite;
  let user: TestUser;

  beforeAll(async () => {
    site = await startSite();
    user = await createUser(site);
  });

  afterAll(async () => {
    await site?.stop();
  });

  it('finds an account key with its user by id, SHA256 and MD5 fingerprint; 400 for a malformed one, 404 for an unknown one', async () => {
    const key = sshPublicKey();
    const created = await site.api('/user/keys', { method: 'POST', as: user.token, body: { title: 'laptop', key } });
    const { md5, sha256 } = fingerprints(key);
    const byId = await site.api(`/keys/${created.body.id}`);
    expect(byId.body).toMatchObject({ id: created.body.id, title: 'laptop', user: { id: user.id, username: user.username } });
    for (const fingerprint of [sha256, `sha256:${sha256.slice(7)}`, md5, `MD5:${md5}`]) {
      const found = await site.api(`/keys?fingerprint=${encodeURIComponent(fingerprint)}`);
      expect(found.status, fingerprint).toBe(200);
      expect(found.body).toMatchObject({ id: created.body.id, user: { id: user.id } });
    }
    expect((await site.api('/keys?fingerprint=not-a-fingerprint')).status).toBe(400);
    expect((await site.api(`/keys?fingerprint=${'00:'.repeat(15)}00`)).body).toEqual({ message: '404 Key Not Found' });
    expect((await site.api(`/keys/${created.body.id}`, { as: user.token })).status).toBe(403);
  });

  it('fills the MD5 fingerprint of keys made before it was kept, so they are found by it', async () => {
    const key = sshPublicKey();
    const { md5, sha256 } = fingerprints(key);
    const id = insertSshKey(site.site.db, { user_id: user.id, title: 'old', key, fingerprint: sha256, fingerprint_md5: null, created_at: new Date().toISOString() });
    expect((await site.api(`/keys?fingerprint=${md5}`)).status).toBe(404);
    expect(fillMd5Fingerprints(site.site.db)).toBe(1);
    expect((await site.api(`/keys?fingerprint=${md5}`)).body).toMatchObject({ id, title: 'old' });
  });
});
