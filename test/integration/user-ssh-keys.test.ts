import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/factories.js';
import { sshPublicKey } from '../helpers/keys.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('SSH keys', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  const addKey = (token: string, key: string, title = 'laptop') => site.api('/user/keys', { method: 'POST', as: token, body: { title, key } });

  it('adds, lists, reads and deletes the current user’s keys', async () => {
    const alice = await createUser(site);
    const key = sshPublicKey('alice@laptop');

    const created = await addKey(alice.token, key);
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toEqual({ id: expect.any(Number), title: 'laptop', key, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });

    const list = await site.api('/user/keys', { as: alice.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    expect(list.headers['x-total']).toBe('1');
    expect(list.headers['x-page']).toBe('1');
    expect(list.headers.link).toContain('rel="first"');

    const one = await site.api(`/user/keys/${created.body.id}`, { as: alice.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(created.body);

    const deleted = await site.api(`/user/keys/${created.body.id}`, { method: 'DELETE', as: alice.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await site.api(`/user/keys/${created.body.id}`, { as: alice.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Key Not Found' });
    expect((await site.api(`/user/keys/${created.body.id}`, { method: 'DELETE', as: alice.token })).status).toBe(404);
  });

  it('stores the key normalized to type, base64 and comment', async () => {
    const alice = await createUser(site);
    const [type, blob] = sshPublicKey().split(' ');
    const pasted = `  ${type}   ${blob.slice(0, 20)}\n${blob.slice(20)}  work   laptop \r\n`;
    const created = await addKey(alice.token, pasted);
    expect(created.status).toBe(201);
    expect(created.body.key).toBe(`${type} ${blob} work laptop`);
  });

  it('pages the list with SQL limits and the pagination headers', async () => {
    const alice = await createUser(site);
    const ids: number[] = [];
    for (const title of ['one', 'two', 'three']) ids.push((await addKey(alice.token, sshPublicKey(), title)).body.id);

    const first = await site.api('/user/keys?per_page=2', { as: alice.token });
    expect(first.body.map((key: { id: number }) => key.id)).toEqual(ids.slice(0, 2));
    expect(first.headers['x-total']).toBe('3');
    expect(first.headers['x-total-pages']).toBe('2');
    expect(first.headers['x-next-page']).toBe('2');
    expect(first.headers.link).toContain('rel="next"');

    const second = await site.api('/user/keys?per_page=2&page=2', { as: alice.token });
    expect(second.body.map((key: { id: number }) => key.id)).toEqual(ids.slice(2));
    expect(second.headers['x-prev-page']).toBe('1');
    expect(second.headers['x-next-page']).toBe('');
  });

  it('rejects a malformed key with field errors', async () => {
    const alice = await createUser(site);
    const truncated = sshPublicKey().slice(0, 40);
    for (const key of ['not a key', truncated, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA==']) {
      const response = await addKey(alice.token, key);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: { key: ['is invalid'], fingerprint: ['cannot be generated'] } });
    }
    expect((await site.api('/user/keys', { as: alice.token })).body).toEqual([]);
  });

  it('requires a title and a key, and bounds the title at 255 characters', async () => {
    const alice = await createUser(site);
    const noTitle = await site.api('/user/keys', { method: 'POST', as: alice.token, body: { key: sshPublicKey() } });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body).toEqual({ message: 'title is missing' });
    const noKey = await site.api('/user/keys', { method: 'POST', as: alice.token, body: { title: 'x' } });
    expect(noKey.status).toBe(400);
    expect(noKey.body).toEqual({ message: 'key is missing' });

    const long = await addKey(alice.token, sshPublicKey(), 'x'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ message: { title: ['is too long (maximum is 255 characters)'] } });
    expect((await addKey(alice.token, sshPublicKey(), 'x'.repeat(255))).status).toBe(201);
  });

  it('rejects a fingerprint already taken by the same or another user', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    const key = sshPublicKey('first');
    expect((await addKey(alice.token, key)).status).toBe(201);

    const sameKeyOtherComment = `${key.split(' ').slice(0, 2).join(' ')} other comment`;
    for (const [token, text] of [
      [alice.token, key],
      [alice.token, sameKeyOtherComment],
      [bob.token, key],
    ]) {
      const response = await addKey(token, text);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: { fingerprint: ['has already been taken'] } });
    }
    expect((await site.api('/user/keys', { as: bob.token })).body).toEqual([]);
  });

  it('answers 404 for another user’s key on /user routes', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    const key = (await addKey(alice.token, sshPublicKey())).body;

    const read = await site.api(`/user/keys/${key.id}`, { as: bob.token });
    expect(read.status).toBe(404);
    expect(read.body).toEqual({ message: '404 Key Not Found' });
    expect((await site.api(`/user/keys/${key.id}`, { method: 'DELETE', as: bob.token })).status).toBe(404);
    expect((await site.api(`/user/keys/${key.id}`, { as: alice.token })).body).toEqual(key);
  });

  it('needs a signed-in caller and integer ids', async () => {
    const anonymous = await site.api('/user/keys', { as: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    expect((await site.api('/user/keys', { method: 'POST', as: null, body: { title: 't', key: sshPublicKey() } })).status).toBe(401);

    const alice = await createUser(site);
    const badId = await site.api('/user/keys/abc', { as: alice.token });
    expect(badId.status).toBe(400);
    expect(badId.body).toEqual({ message: 'key_id is invalid' });
    const badUser = await site.api('/users/abc/keys');
    expect(badUser.status).toBe(400);
    expect(badUser.body).toEqual({ message: 'id is invalid' });
  });

  it('lets admins manage any user’s keys under /users/:id/keys', async () => {
    const alice = await createUser(site);
    const key = sshPublicKey('added by admin');

    const created = await site.api(`/users/${alice.id}/keys`, { method: 'POST', body: { title: 'deploy', key } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: 'deploy', key });

    const list = await site.api(`/users/${alice.id}/keys`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    expect(list.headers['x-total']).toBe('1');
    expect((await site.api(`/users/${alice.id}/keys/${created.body.id}`)).body).toEqual(created.body);
    expect((await site.api('/user/keys', { as: alice.token })).body).toEqual([created.body]);

    const bob = await createUser(site);
    expect((await site.api(`/users/${bob.id}/keys/${created.body.id}`)).status).toBe(404);
    expect((await site.api(`/users/${bob.id}/keys/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);

    expect((await site.api(`/users/${alice.id}/keys/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/users/${alice.id}/keys`)).body).toEqual([]);
  });

  it('answers 404 User on /users/:id/keys for a missing user', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', { title: 't', key: sshPublicKey() }],
    ] as const) {
      const response = await site.api('/users/999999/keys', { method, body });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: '404 User Not Found' });
    }
  });

  it('keeps /users/:id/keys for admins: 403 for users, 401 for anonymous callers', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    for (const [method, path] of [
      ['GET', `/users/${alice.id}/keys`],
      ['POST', `/users/${alice.id}/keys`],
      ['GET', `/users/${alice.id}/keys/1`],
      ['DELETE', `/users/${alice.id}/keys/1`],
    ]) {
      const forbidden = await site.api(path, { method, as: bob.token, body: { title: 't', key: sshPublicKey() } });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual({ message: '403 Forbidden' });
      expect((await site.api(path, { method, as: null })).status).toBe(401);
    }
    // Not even the owner reaches the admin form.
    expect((await site.api(`/users/${alice.id}/keys`, { as: alice.token })).status).toBe(403);
  });

  it('shows any key with its owner at GET /keys/:id, for admins only', async () => {
    const alice = await createUser(site);
    const key = (await addKey(alice.token, sshPublicKey())).body;

    const found = await site.api(`/keys/${key.id}`);
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      ...key,
      user: expect.objectContaining({ id: alice.id, username: alice.username, email: alice.email, identities: [], state: 'active' }),
    });
    expect(found.body.user).not.toHaveProperty('is_admin');

    expect((await site.api(`/keys/${key.id}`, { as: alice.token })).status).toBe(403);
    expect((await site.api(`/keys/${key.id}`, { as: null })).status).toBe(401);
    const missing = await site.api('/keys/999999');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Key Not Found' });

    const fingerprint = site.site.db.prepare('SELECT fingerprint FROM ssh_keys WHERE id = ?').pluck().get(key.id) as string;
    expect(fingerprint).toMatch(/^SHA256:/);
    const byFingerprint = await site.api(`/keys?fingerprint=${encodeURIComponent(fingerprint)}`);
    expect(byFingerprint.body).toMatchObject({ id: key.id, user: { id: alice.id } });
    expect((await site.api('/keys?fingerprint=SHA256%3Anope')).status).toBe(404);
    expect((await site.api('/keys')).body).toEqual({ message: 'fingerprint is missing' });
  });
});
