import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** POST /users/:id/ban and /unban (admin): a banned user cannot sign in or use tokens and is hidden from non-admin lists. */
describe('user bans', () => {
  let site: TestSite;
  let admin: TestUser;
  let regular: TestUser;

  beforeAll(async () => {
    site = await startSite();
    admin = await createUser(site, { admin: true });
    regular = await createUser(site);
  });
  afterAll(() => site.stop());

  it('bans an active user: state banned, tokens and password refused, listed to admins only', async () => {
    const target = await createUser(site, { password: 'target-password' });
    expect((await site.api('/user', { as: target.token })).status).toBe(200);
    const banned = await site.api(`/users/${target.id}/ban`, { method: 'POST', as: admin.token });
    expect(banned.status).toBe(201);
    expect(banned.body).toBe(true);
    expect((await site.api('/user', { as: target.token })).status).toBe(401);
    const grant = await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'password', username: target.username, password: 'target-password' } });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('invalid_grant');
    expect((await site.api(`/users/${target.id}`, { as: admin.token })).body.state).toBe('banned');
    const asAdmin = await site.api(`/users?username=${target.username}`, { as: admin.token });
    expect(asAdmin.body.map((u: { id: number }) => u.id)).toEqual([target.id]);
    const asUser = await site.api(`/users?username=${target.username}`, { as: regular.token });
    expect(asUser.body).toEqual([]);
    const blocked = await site.api('/users?blocked=true', { as: admin.token });
    expect(blocked.body.map((u: { id: number }) => u.id)).not.toContain(target.id);

    const again = await site.api(`/users/${target.id}/ban`, { method: 'POST', as: admin.token });
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ message: 'You cannot ban banned users.' });

    const unbanned = await site.api(`/users/${target.id}/unban`, { method: 'POST', as: admin.token });
    expect(unbanned.status).toBe(201);
    expect(unbanned.body).toBe(true);
    expect((await site.api('/user', { as: target.token })).body.state).toBe('active');
    const unbanActive = await site.api(`/users/${target.id}/unban`, { method: 'POST', as: admin.token });
    expect(unbanActive.status).toBe(403);
    expect(unbanActive.body).toEqual({ message: 'You cannot unban active users.' });
  });

  it('refuses to ban a blocked user (403) and lifts a ban on unblock', async () => {
    const target = await createUser(site);
    expect((await site.api(`/users/${target.id}/block`, { method: 'POST', as: admin.token })).status).toBe(201);
    const refused = await site.api(`/users/${target.id}/ban`, { method: 'POST', as: admin.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'You cannot ban blocked users.' });
    expect((await site.api(`/users/${target.id}/unblock`, { method: 'POST', as: admin.token })).status).toBe(201);
    expect((await site.api(`/users/${target.id}/ban`, { method: 'POST', as: admin.token })).status).toBe(201);
    expect((await site.api(`/users/${target.id}/unblock`, { method: 'POST', as: admin.token })).status).toBe(201);
    expect((await site.api(`/users/${target.id}`, { as: admin.token })).body.state).toBe('active');
  });

  it('answers 401 anonymous, 403 to non-admins, 404 for a missing user, 400 for a bad id', async () => {
    for (const action of ['ban', 'unban']) {
      expect((await site.api(`/users/${regular.id}/${action}`, { method: 'POST', as: null })).status).toBe(401);
      expect((await site.api(`/users/${regular.id}/${action}`, { method: 'POST', as: regular.token })).status).toBe(403);
      const missing = await site.api(`/users/999999/${action}`, { method: 'POST', as: admin.token });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: '404 User Not Found' });
      expect((await site.api(`/users/abc/${action}`, { method: 'POST', as: admin.token })).status).toBe(400);
    }
  });
});
