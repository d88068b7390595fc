import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/factories.js';
import { gpgKeyPair } from '../helpers/keys.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('GPG keys', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  const addKey = (token: string, key: string) => site.api('/user/gpg_keys', { method: 'POST', as: token, body: { key } });

  it('adds, lists, reads and deletes the current user’s keys', async () => {
    const alice = await createUser(site);
    const { publicKey } = await gpgKeyPair(alice.email);

    const created = await addKey(alice.token, `\n${publicKey}\n\n`);
    expect(created.status).toBe(201);
    // 201 with the created key as one object, not the SPEC's array (GITLAB-NOTES decision 3: GitLab
    // 10.x's code answers so, and python-gitlab's gpgkeys.create needs an object).
    expect(created.body).toEqual({ id: expect.any(Number), key: publicKey.trim(), created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/) });

    const list = await site.api('/user/gpg_keys', { as: alice.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body]);
    expect(list.headers['x-total']).toBe('1');
    expect(list.headers['x-total-pages']).toBe('1');
    expect(list.headers.link).toContain('rel="last"');

    expect((await site.api(`/user/gpg_keys/${created.body.id}`, { as: alice.token })).body).toEqual(created.body);

    const deleted = await site.api(`/user/gpg_keys/${created.body.id}`, { method: 'DELETE', as: alice.token });
    expect(deleted.status).toBe(204);
    const gone = await site.api(`/user/gpg_keys/${created.body.id}`, { as: alice.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 GPG Key Not Found' });
  });

  it('pages the list', async () => {
    const alice = await createUser(site);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await addKey(alice.token, (await gpgKeyPair(alice.email)).publicKey)).body.id);
    const second = await site.api('/user/gpg_keys?per_page=2&page=2', { as: alice.token });
    expect(second.body.map((key: { id: number }) => key.id)).toEqual([ids[2]]);
    expect(second.headers['x-total']).toBe('3');
    expect(second.headers['x-page']).toBe('2');
    expect(second.headers['x-prev-page']).toBe('1');
  });

  it('rejects text that is not an armored public key', async () => {
    const alice = await createUser(site);
    const garbage = await addKey(alice.token, 'not a key');
    expect(garbage.status).toBe(400);
    expect(garbage.body).toEqual({ message: { key: ["is invalid. A valid public GPG key begins with '-----BEGIN PGP PUBLIC KEY BLOCK-----'"] } });

    const { publicKey, privateKey } = await gpgKeyPair(alice.email);
    const secret = await addKey(alice.token, privateKey);
    expect(secret.status).toBe(400);
    expect(secret.body).toEqual({ message: { key: ['is a private key; add the public key block only'] } });
    const disguised = privateKey.replaceAll('PGP PRIVATE KEY BLOCK', 'PGP PUBLIC KEY BLOCK');
    const secretInPublicArmor = await addKey(alice.token, disguised);
    expect(secretInPublicArmor.status).toBe(400);
    expect(secretInPublicArmor.body).toEqual({ message: { key: ['is a private key; add the public key block only'] } });

    const lines = publicKey.trim().split('\n');
    const corrupted = [lines[0], '', 'bm90IGFuIE9wZW5QR1Aga2V5IGF0IGFsbA==', lines.at(-1)].join('\n');
    const unreadable = await addKey(alice.token, corrupted);
    expect(unreadable.status).toBe(400);
    expect(unreadable.body.message.key).toHaveLength(1);
    expect(unreadable.body.message.key[0]).toMatch(/^is not a readable OpenPGP public key: /);

    const missing = await site.api('/user/gpg_keys', { method: 'POST', as: alice.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'key is missing' });
    expect((await site.api('/user/gpg_keys', { as: alice.token })).body).toEqual([]);
  });

  it('rejects a fingerprint already taken by the same or another user', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    const { publicKey } = await gpgKeyPair(alice.email);
    expect((await addKey(alice.token, publicKey)).status).toBe(201);
    for (const token of [alice.token, bob.token]) {
      const response = await addKey(token, publicKey);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: { fingerprint: ['has already been taken'] } });
    }
  });

  it('answers 404 for another user’s key on /user routes', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    const key = (await addKey(alice.token, (await gpgKeyPair(alice.email)).publicKey)).body;
    for (const method of ['GET', 'DELETE']) {
      const response = await site.api(`/user/gpg_keys/${key.id}`, { method, as: bob.token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: '404 GPG Key Not Found' });
    }
    expect((await site.api(`/user/gpg_keys/${key.id}/revoke`, { method: 'POST', as: bob.token })).status).toBe(404);
    expect((await site.api(`/user/gpg_keys/${key.id}`, { as: alice.token })).body).toEqual(key);
  });

  it('revokes a key with 202, removing it', async () => {
    const alice = await createUser(site);
    const key = (await addKey(alice.token, (await gpgKeyPair(alice.email)).publicKey)).body;
    const revoked = await site.api(`/user/gpg_keys/${key.id}/revoke`, { method: 'POST', as: alice.token, body: {} });
    expect(revoked.status).toBe(202);
    expect(revoked.body).toEqual({ message: '202 Accepted' });
    expect((await site.api(`/user/gpg_keys/${key.id}`, { as: alice.token })).status).toBe(404);

    const other = (await addKey(alice.token, (await gpgKeyPair(alice.email)).publicKey)).body;
    expect((await site.api(`/users/${alice.id}/gpg_keys/${other.id}/revoke`, { method: 'POST', body: {} })).status).toBe(202);
    expect((await site.api('/user/gpg_keys', { as: alice.token })).body).toEqual([]);
  });

  it('needs a signed-in caller and integer ids', async () => {
    const anonymous = await site.api('/user/gpg_keys', { as: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    const alice = await createUser(site);
    const badId = await site.api('/user/gpg_keys/1.5', { as: alice.token });
    expect(badId.status).toBe(400);
    expect(badId.body).toEqual({ message: 'key_id is invalid' });
  });

  it('lets admins manage any user’s keys under /users/:id/gpg_keys, taking `key`', async () => {
    const alice = await createUser(site);
    const { publicKey } = await gpgKeyPair(alice.email);

    const created = await site.api(`/users/${alice.id}/gpg_keys`, { method: 'POST', body: { key: publicKey } });
    // The admin route answers as /user/gpg_keys does: 201 with the created key object (GITLAB-NOTES decision 3).
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toEqual({ id: expect.any(Number), key: publicKey.trim(), created_at: expect.any(String) });

    const list = await site.api(`/users/${alice.id}/gpg_keys`);
    expect(list.body).toEqual([created.body]);
    expect(list.headers['x-total']).toBe('1');
    expect((await site.api(`/users/${alice.id}/gpg_keys/${created.body.id}`)).body).toEqual(created.body);
    expect((await site.api('/user/gpg_keys', { as: alice.token })).body).toEqual([created.body]);

    const bob = await createUser(site);
    expect((await site.api(`/users/${bob.id}/gpg_keys/${created.body.id}`)).status).toBe(404);

    expect((await site.api(`/users/${alice.id}/gpg_keys/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/users/${alice.id}/gpg_keys`)).body).toEqual([]);

    const missing = await site.api('/users/999999/gpg_keys', { method: 'POST', body: { key: publicKey } });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
  });

  it('keeps /users/:id/gpg_keys for admins: 403 for users, 401 for anonymous callers', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    for (const [method, path] of [
      ['GET', `/users/${alice.id}/gpg_keys`],
      ['POST', `/users/${alice.id}/gpg_keys`],
      ['GET', `/users/${alice.id}/gpg_keys/1`],
      ['DELETE', `/users/${alice.id}/gpg_keys/1`],
    ]) {
      // A well-formed body: Grape validates the parameters before authenticated_as_admin! runs.
      const forbidden = await site.api(path, { method, as: bob.token, body: method === 'POST' ? { key: 'a key' } : {} });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual({ message: '403 Forbidden' });
      expect((await site.api(path, { method, as: null })).status).toBe(401);
    }
  });
});
