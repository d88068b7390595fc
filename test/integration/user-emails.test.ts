import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('emails', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  let counter = 0;
  const fresh = () => `second${++counter}.${Date.now()}@example.org`;
  const addEmail = (token: string, email: string) => site.api('/user/emails', { method: 'POST', as: token, body: { email } });
  const taken = { message: { email: ['has already been taken'] } };

  it('adds, lists, reads and deletes the current user’s secondary emails', async () => {
    const alice = await createUser(site);
    const address = fresh();

    const created = await addEmail(alice.token, address);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), email: address });

    const list = await site.api('/user/emails', { as: alice.token });
    expect(list.status).toBe(200);
    // The primary email is not listed.
    expect(list.body).toEqual([created.body]);
    expect(list.headers['x-total']).toBe('1');
    expect(list.headers['x-per-page']).toBe('20');
    expect(list.headers.link).toContain('rel="first"');

    expect((await site.api(`/user/emails/${created.body.id}`, { as: alice.token })).body).toEqual(created.body);

    expect((await site.api(`/user/emails/${created.body.id}`, { method: 'DELETE', as: alice.token })).status).toBe(204);
    const gone = await site.api(`/user/emails/${created.body.id}`, { as: alice.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Email Not Found' });
    // Deleting frees the address again.
    expect((await addEmail(alice.token, address)).status).toBe(201);
  });

  it('stores the address stripped and lower-cased, as GitLab does', async () => {
    const alice = await createUser(site);
    const created = await addEmail(alice.token, '  Alice.Work@Example.ORG ');
    expect(created.status).toBe(201);
    expect(created.body.email).toBe('alice.work@example.org');
  });

  it('pages the list', async () => {
    const alice = await createUser(site);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await addEmail(alice.token, fresh())).body.id);
    const first = await site.api('/user/emails?per_page=2', { as: alice.token });
    expect(first.body.map((row: { id: number }) => row.id)).toEqual(ids.slice(0, 2));
    expect(first.headers['x-total-pages']).toBe('2');
    expect(first.headers['x-next-page']).toBe('2');
  });

  it('validates the address format and presence', async () => {
    const alice = await createUser(site);
    for (const email of ['not-an-email', 'a@b', 'two words@example.org']) {
      const response = await addEmail(alice.token, email);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: { email: ['is invalid'] } });
    }
    const missing = await site.api('/user/emails', { method: 'POST', as: alice.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'email is missing' });
  });

  it('rejects an address any user holds, primary or secondary, in any case', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    const secondary = fresh();
    expect((await addEmail(bob.token, secondary)).status).toBe(201);

    for (const email of [bob.email, bob.email.toUpperCase(), alice.email, secondary, secondary.toUpperCase()]) {
      const response = await addEmail(alice.token, email);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(taken);
    }
    // The same rule holds on the admin form.
    expect((await site.api(`/users/${alice.id}/emails`, { method: 'POST', body: { email: secondary } })).body).toEqual(taken);
    expect((await site.api('/user/emails', { as: alice.token })).body).toEqual([]);
  });

  it('keeps a secondary address from becoming another user’s primary one', async () => {
    const alice = await createUser(site);
    const secondary = fresh();
    expect((await addEmail(alice.token, secondary)).status).toBe(201);
    const clash = await site.api('/users', {
      method: 'POST',
      body: { username: `clash${Date.now()}`, email: secondary.toUpperCase(), name: 'Clash', password: 'password123' },
    });
    expect(clash.status).toBe(409);
  });

  it('answers 404 for another user’s email on /user routes', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    const email = (await addEmail(alice.token, fresh())).body;
    for (const method of ['GET', 'DELETE']) {
      const response = await site.api(`/user/emails/${email.id}`, { method, as: bob.token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: '404 Email Not Found' });
    }
    expect((await site.api(`/user/emails/${email.id}`, { as: alice.token })).body).toEqual(email);
  });

  it('needs a signed-in caller and integer ids', async () => {
    const anonymous = await site.api('/user/emails', { as: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
    expect((await site.api('/user/emails', { method: 'POST', as: null, body: { email: fresh() } })).status).toBe(401);
    const alice = await createUser(site);
    const badId = await site.api('/user/emails/first', { as: alice.token });
    expect(badId.status).toBe(400);
    expect(badId.body).toEqual({ message: 'email_id is invalid' });
  });

  it('lets admins manage any user’s emails under /users/:id/emails', async () => {
    const alice = await createUser(site);
    const address = fresh();
    const created = await site.api(`/users/${alice.id}/emails`, { method: 'POST', body: { email: address } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(Number), email: address });

    const list = await site.api(`/users/${alice.id}/emails`);
    expect(list.body).toEqual([created.body]);
    expect(list.headers['x-total']).toBe('1');
    expect((await site.api(`/users/${alice.id}/emails/${created.body.id}`)).body).toEqual(created.body);
    expect((await site.api('/user/emails', { as: alice.token })).body).toEqual([created.body]);

    const bob = await createUser(site);
    expect((await site.api(`/users/${bob.id}/emails/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await site.api(`/users/${alice.id}/emails/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/users/${alice.id}/emails`)).body).toEqual([]);

    const missing = await site.api('/users/999999/emails');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
  });

  it('keeps /users/:id/emails for admins: 403 for users, 401 for anonymous callers', async () => {
    const alice = await createUser(site);
    const bob = await createUser(site);
    for (const [method, path] of [
      ['GET', `/users/${alice.id}/emails`],
      ['POST', `/users/${alice.id}/emails`],
      ['DELETE', `/users/${alice.id}/emails/1`],
    ]) {
      const forbidden = await site.api(path, { method, as: bob.token, body: { email: fresh() } });
      expect(forbidden.status).toBe(403);
      expect(forbidden.body).toEqual({ message: '403 Forbidden' });
      expect((await site.api(path, { method, as: null })).status).toBe(401);
    }
  });

  it('drops a secondary email once the user makes it their primary one', async () => {
    const alice = await createUser(site);
    const address = fresh();
    const added = await site.api(`/users/${alice.id}/emails`, { method: 'POST', body: { email: address } });
    expect(added.status).toBe(201);
    expect((await site.api(`/users/${alice.id}`, { method: 'PUT', body: { email: address } })).body.email).toBe(address);
    expect((await site.api(`/users/${alice.id}/emails`)).body).toEqual([]);
  });
});
