import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestSecret } from '../../src/services/users/secrets.js';
import { createUser, tokenFor, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('personal access tokens', () => {
  let site: TestSite;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    site = await startSite();
    alice = await createUser(site);
    bob = await createUser(site);
  });

  afterAll(async () => {
    await site?.stop();
  });

  it('lets an admin create a token for a user, answered once, stored as a digest, and usable at once', async () => {
    const created = await site.api(`/users/${alice.id}/personal_access_tokens`, { method: 'POST', body: { name: 'script', scopes: ['api', 'read_user'], expires_at: '2999-01-01' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'script', scopes: ['api', 'read_user'], user_id: alice.id, revoked: false, active: true, expires_at: '2999-01-01', last_used_at: null });
    expect(created.body.token).toMatch(/^glpat-/);
    const stored = site.site.db.prepare('SELECT token_digest FROM personal_access_tokens WHERE id = ?').get(created.body.id) as { token_digest: string };
    expect(stored.token_digest).toBe(digestSecret(created.body.token));
    expect(stored.token_digest).not.toContain(created.body.token);
    expect((await site.api('/user', { as: created.body.token })).body.id).toBe(alice.id);
    const shown = await site.api(`/personal_access_tokens/${created.body.id}`, { as: alice.token });
    expect(shown.body.token).toBeUndefined();
  });

  it('answers the create error rows: 401, 403, 404 user, 400 scopes and name', async () => {
    const body = { name: 'x', scopes: ['api'] };
    expect((await site.api(`/users/${alice.id}/personal_access_tokens`, { method: 'POST', as: null, body })).status).toBe(401);
    expect((await site.api(`/users/${alice.id}/personal_access_tokens`, { method: 'POST', as: alice.token, body })).status).toBe(403);
    expect((await site.api('/users/999999/personal_access_tokens', { method: 'POST', body })).body).toEqual({ message: '404 User Not Found' });
    expect((await site.api(`/users/${alice.id}/personal_access_tokens`, { method: 'POST', body: { name: 'x', scopes: ['write_everything'] } })).body).toEqual({
      message: 'scopes does not have a valid value',
    });
    expect((await site.api(`/users/${alice.id}/personal_access_tokens`, { method: 'POST', body: { scopes: ['api'] } })).body).toEqual({ message: 'name is missing' });
  });

  it('lets a user create a token of their own limited to k8s_proxy (16.5+), expiring tomorrow by default, which opens no API route', async () => {
    // A user of its own: the list test below counts bob's tokens.
    const carol = await createUser(site);
    const created = await site.api('/user/personal_access_tokens', { method: 'POST', as: carol.token, body: { name: 'agent', scopes: 'k8s_proxy' } });
    expect(created.status).toBe(201);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    expect(created.body).toMatchObject({ name: 'agent', scopes: ['k8s_proxy'], user_id: carol.id, revoked: false, active: true });
    // Tomorrow, unless the day turned between the request and this line.
    expect([tomorrow, new Date(Date.now()).toISOString().slice(0, 10)]).toContain(created.body.expires_at);
    expect(created.body.token).toMatch(/^glpat-/);
    expect(site.site.db.prepare('SELECT token_digest FROM personal_access_tokens WHERE id = ?').pluck().get(created.body.id)).toBe(digestSecret(created.body.token));
    expect(await site.api('/projects', { as: created.body.token })).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect((await site.api('/personal_access_tokens/self', { as: created.body.token })).body).toMatchObject({ id: created.body.id, scopes: ['k8s_proxy'] });
    const dated = await site.api('/user/personal_access_tokens', { method: 'POST', as: carol.token, body: { name: 'dated', scopes: ['k8s_proxy'], expires_at: '2999-01-01' } });
    expect(dated).toMatchObject({ status: 201, body: { expires_at: '2999-01-01' } });

    const post = (body: Record<string, unknown>, as?: string | null) => site.api('/user/personal_access_tokens', { method: 'POST', as, body });
    expect(await post({ name: 'x', scopes: ['k8s_proxy'] }, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await post({ name: 'x', scopes: ['api'] }, carol.token)).toMatchObject({ status: 400, body: { message: 'scopes does not have a valid value' } });
    expect(await post({ name: 'x' }, carol.token)).toMatchObject({ status: 400, body: { message: 'scopes is missing' } });
    expect(await post({ scopes: ['k8s_proxy'] }, carol.token)).toMatchObject({ status: 400, body: { message: 'name is missing' } });
    expect(await post({ name: 'x', scopes: ['k8s_proxy'], expires_at: '2000-01-01' }, carol.token)).toMatchObject({ status: 400, body: { message: { expires_at: ['must be in the future'] } } });
    expect(await post({ name: 'x', scopes: ['k8s_proxy'], expires_at: 'soon' }, carol.token)).toMatchObject({ status: 400, body: { message: 'expires_at is invalid' } });
  });

  it("lists a user's own tokens without impersonation tokens; admins list anyone's with filters", async () => {
    const impersonation = await site.api(`/users/${bob.id}/impersonation_tokens`, { method: 'POST', body: { name: 'imp', scopes: ['api'] } });
    expect(impersonation.status).toBe(201);
    await site.api(`/users/${bob.id}/personal_access_tokens`, { method: 'POST', body: { name: 'deploy-bot', scopes: ['read_user'] } });

    const own = await site.api('/personal_access_tokens', { as: bob.token });
    expect(own.status).toBe(200);
    expect(own.body.every((t: any) => t.user_id === bob.id)).toBe(true);
    expect(own.body.map((t: any) => t.id)).not.toContain(impersonation.body.id);
    expect(own.body.map((t: any) => t.name).sort()).toEqual(['deploy-bot', 'test']);

    expect((await site.api(`/personal_access_tokens?user_id=${alice.id}`, { as: bob.token })).status).toBe(401);
    expect((await site.api(`/personal_access_tokens?user_id=${bob.id}`, { as: bob.token })).status).toBe(200);

    const ofBob = await site.api(`/personal_access_tokens?user_id=${bob.id}`);
    expect(ofBob.body.map((t: any) => t.id)).toContain(impersonation.body.id);
    const searched = await site.api(`/personal_access_tokens?user_id=${bob.id}&search=bot`);
    expect(searched.body.map((t: any) => t.name)).toEqual(['deploy-bot']);
    expect((await site.api('/personal_access_tokens?user_id=999999')).status).toBe(404);
    expect((await site.api('/personal_access_tokens?state=bogus')).status).toBe(400);
    expect((await site.api('/personal_access_tokens', { as: null })).status).toBe(401);
  });

  it('revokes a token (204): the owner or an admin; others get 400, a missing token 404; state and revoked filters follow', async () => {
    const token = tokenFor(site, alice.id, ['api']);
    const self = await site.api('/personal_access_tokens/self', { as: token });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ user_id: alice.id, active: true, revoked: false });

    expect((await site.api(`/personal_access_tokens/${self.body.id}`, { as: bob.token })).status).toBe(401);
    expect((await site.api(`/personal_access_tokens/${self.body.id}`, { method: 'DELETE', as: bob.token })).status).toBe(400);
    expect((await site.api('/personal_access_tokens/999999', { method: 'DELETE', as: alice.token })).status).toBe(404);
    expect((await site.api('/personal_access_tokens/999999')).status).toBe(404);
    expect((await site.api('/personal_access_tokens/999999', { as: alice.token })).status).toBe(401);

    expect((await site.api(`/personal_access_tokens/${self.body.id}`, { method: 'DELETE', as: alice.token })).status).toBe(204);
    expect((await site.api('/user', { as: token })).status).toBe(401);
    const revoked = await site.api(`/personal_access_tokens?user_id=${alice.id}&revoked=true`);
    expect(revoked.body.map((t: any) => t.id)).toContain(self.body.id);
    const inactive = await site.api(`/personal_access_tokens?user_id=${alice.id}&state=inactive`);
    expect(inactive.body.map((t: any) => t.id)).toContain(self.body.id);
    const active = await site.api(`/personal_access_tokens?user_id=${alice.id}&state=active`);
    expect(active.body.map((t: any) => t.id)).not.toContain(self.body.id);
  });

  it('lets a token of any scope read and revoke itself (self), and nothing else with read_user', async () => {
    const token = tokenFor(site, bob.id, ['read_user']);
    const self = await site.api('/personal_access_tokens/self', { as: token });
    expect(self.status).toBe(200);
    expect(self.body.scopes).toEqual(['read_user']);
    expect((await site.api('/personal_access_tokens', { as: token })).status).toBe(403);
    expect((await site.api('/personal_access_tokens/self', { method: 'DELETE', as: token })).status).toBe(204);
    expect((await site.api('/personal_access_tokens/self', { as: token })).status).toBe(401);
  });
});
