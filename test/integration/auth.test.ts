import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { request } from 'undici';
import { createUser, tokenFor, type TestUser } from '../helpers/factories.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';

describe('authentication', () => {
  let site: TestSite;
  let alice: TestUser;
  beforeAll(async () => {
    site = await startSite();
    alice = await createUser(site, { password: 'alice-password' });
  });
  afterAll(() => site.stop());

  const whoAmI = async (headers: Record<string, string>, query = '') => {
    const response = await request(`${site.url}/api/v4/user${query}`, { headers });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? JSON.parse(text) : null };
  };

  it('accepts a personal access token in the Private-Token header and the private_token query', async () => {
    expect((await whoAmI({ 'private-token': alice.token })).body.username).toBe(alice.username);
    expect((await whoAmI({}, `?private_token=${alice.token}`)).body.username).toBe(alice.username);
  });

  it('issues OAuth tokens by password grant and accepts them as Bearer or access_token', async () => {
    const grant = await site.api('/oauth/token', { as: null, body: { grant_type: 'password', username: alice.username, password: 'alice-password' }, method: 'POST' });
    expect(grant.status).toBe(200);
    expect(grant.body).toMatchObject({ token_type: 'Bearer', scope: 'api' });
    expect((await whoAmI({ authorization: `Bearer ${grant.body.access_token}` })).body.username).toBe(alice.username);
    expect((await whoAmI({}, `?access_token=${grant.body.access_token}`)).body.username).toBe(alice.username);

    const refreshed = await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'refresh_token', refresh_token: grant.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect((await whoAmI({ authorization: `Bearer ${grant.body.access_token}` })).status).toBe(401);
    expect((await whoAmI({ authorization: `Bearer ${refreshed.body.access_token}` })).status).toBe(200);

    const wrong = await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'password', username: alice.username, password: 'nope-nope' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    const badGrant = await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'client_credentials' } });
    expect(badGrant.body.error).toBe('unsupported_grant_type');
  });

  it('signs in with a session cookie', async () => {
    const response = await request(`${site.url}/users/sign_in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `user[login]=${alice.username}&user[password]=alice-password`,
    });
    await response.body.text();
    expect(response.statusCode).toBe(302);
    const cookie = String(response.headers['set-cookie']).split(';')[0];
    expect(cookie).toMatch(/^_geoforge_session=/);
    expect((await whoAmI({ cookie })).body.username).toBe(alice.username);
    expect((await whoAmI({ cookie: '_geoforge_session=forged' })).status).toBe(401);

    const wrong = await site.api('/users/sign_in', { as: null, method: 'POST', body: { login: alice.username, password: 'wrong-password' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'Invalid login or password.' });
  });

  it('forces a new password at the next sign-in after an admin sets one', async () => {
    const bob = await createUser(site);
    expect((await site.api(`/users/${bob.id}`, { method: 'PUT', body: { password: 'admin-chosen-1' } })).status).toBe(200);
    const expired = await site.api('/users/sign_in', { as: null, method: 'POST', body: { login: bob.username, password: 'admin-chosen-1' } });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/password expired/i);
    const changed = await site.api('/users/sign_in', { as: null, method: 'POST', body: { login: bob.username, password: 'admin-chosen-1', new_password: 'bob-own-pass' } });
    expect(changed.status).toBe(302);
    const again = await site.api('/users/sign_in', { as: null, method: 'POST', body: { login: bob.username, password: 'bob-own-pass' } });
    expect(again.status).toBe(302);
  });

  it('authenticates impersonation tokens until they are revoked or expire', async () => {
    const created = await site.api(`/users/${alice.id}/impersonation_tokens`, { method: 'POST', body: { name: 'imp', scopes: ['api'] } });
    expect(created.status).toBe(201);
    const token = created.body.token as string;
    expect((await whoAmI({ 'private-token': token })).body.username).toBe(alice.username);
    expect((await site.api(`/users/${alice.id}/impersonation_tokens/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await whoAmI({ 'private-token': token })).toEqual({ status: 401, body: { message: '401 Unauthorized' } });

    const expired = tokenFor(site, alice.id, ['api'], '2020-01-01');
    expect((await whoAmI({ 'private-token': expired })).status).toBe(401);
  });

  it('answers 401 for an unknown token even on public reads, and for a blocked user', async () => {
    expect(await site.api('/users?username=root', { as: 'glpat-not-a-token' })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const carol = await createUser(site);
    expect((await site.api(`/users/${carol.id}/block`, { method: 'POST' })).body).toBe(true);
    expect((await site.api('/user', { as: carol.token })).status).toBe(401);
  });

  it('serves a cached actor as its user is now: edited, then blocked, while other users change too', async () => {
    const dave = await createUser(site);
    const other = await createUser(site);
    expect((await site.api('/user', { as: dave.token })).body.id).toBe(dave.id);
    await site.api(`/users/${other.id}`, { method: 'PUT', body: { bio: 'unrelated' } });
    await site.api(`/users/${dave.id}`, { method: 'PUT', body: { name: 'Dave Renamed' } });
    expect((await site.api('/user', { as: dave.token })).body.name).toBe('Dave Renamed');
    await site.api(`/users/${other.id}`, { method: 'PUT', body: { bio: 'unrelated again' } });
    expect((await site.api(`/users/${dave.id}/block`, { method: 'POST' })).body).toBe(true);
    expect((await site.api('/user', { as: dave.token })).status).toBe(401);
  });

  it('limits read_user tokens to reading users', async () => {
    const token = tokenFor(site, alice.id, ['read_user']);
    expect((await site.api('/user', { as: token })).status).toBe(200);
    expect((await site.api(`/users/${alice.id}`, { as: token })).status).toBe(200);
    const version = await site.api('/version', { as: token });
    expect(version.status).toBe(403);
    expect(version.body).toMatchObject({ error: 'insufficient_scope', scope: 'api' });
    expect((await site.api('/user/emails', { as: token, method: 'POST', body: { email: 'x@example.com' } })).status).toBe(403);
  });

  it('notices a token revoked by another process at once, though resolved actors are cached', async () => {
    const token = tokenFor(site, alice.id, ['api']);
    expect((await whoAmI({ 'private-token': token })).status).toBe(200);
    expect((await whoAmI({ 'private-token': token })).status).toBe(200);
    const other = new Database(path.join(site.dataDir, 'geoforge.sqlite'));
    try {
      other.prepare('UPDATE personal_access_tokens SET revoked = 1 WHERE token_digest = ?').run(createHash('sha256').update(token).digest('hex'));
    } finally {
      other.close();
    }
    expect((await whoAmI({ 'private-token': token })).status).toBe(401);
  });

  it('never stores a token in clear', async () => {
    const stored = site.site.db.prepare('SELECT token_digest FROM personal_access_tokens').pluck().all() as string[];
    expect(stored.length).toBeGreaterThan(0);
    expect(stored).not.toContain(ROOT_TOKEN);
    expect(stored.every((digest) => /^[0-9a-f]{64}$/.test(digest))).toBe(true);
  });
});

describe('sudo', () => {
  let site: TestSite;
  let alice: TestUser;
  beforeAll(async () => {
    site = await startSite();
    alice = await createUser(site);
  });
  afterAll(() => site.stop());

  it('acts as another user by id or username, from the query or the Sudo header', async () => {
    expect((await site.api(`/user?sudo=${alice.id}`)).body.username).toBe(alice.username);
    expect((await site.api(`/user?sudo=${alice.username}`)).body.username).toBe(alice.username);
    const viaHeader = await site.api('/user', { headers: { sudo: alice.username } });
    expect(viaHeader.body).toMatchObject({ username: alice.username });
    expect(viaHeader.body.is_admin).toBeUndefined();
  });

  it('is refused to non-admins with the SPEC message', async () => {
    const response = await site.api('/user?sudo=root', { as: alice.token });
    expect(response).toMatchObject({ status: 403, body: { message: '403 Forbidden - Must be admin to use sudo' } });
  });

  it('needs the sudo scope', async () => {
    const rootWithoutSudo = tokenFor(site, 1, ['api']);
    const response = await site.api(`/user?sudo=${alice.id}`, { as: rootWithoutSudo });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'sudo',
    });
  });

  it('needs the sudo scope from an impersonation token too: a personal access token in the SPEC (issue 17, item 8)', async () => {
    const admin = await createUser(site, { admin: true });
    const created = await site.api(`/users/${admin.id}/impersonation_tokens`, { method: 'POST', body: { name: 'impersonating an admin', scopes: ['api'] } });
    expect(created.status).toBe(201);
    const response = await site.api(`/user?sudo=${alice.id}`, { as: created.body.token });
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'sudo',
    });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="Geoforge", error="insufficient_scope", scope="sudo"');
  });

  it('is refused to an admin signed in with a session cookie: no token, no scope', async () => {
    const admin = await createUser(site, { admin: true, password: 'admin-password' });
    const signIn = await request(`${site.url}/users/sign_in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `user[login]=${admin.username}&user[password]=admin-password`,
    });
    await signIn.body.dump();
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const response = await request(`${site.url}/api/v4/user?sudo=${alice.id}`, { headers: { cookie } });
    expect(response.statusCode).toBe(403);
    expect(await response.body.json()).toEqual({ message: '403 Forbidden - Must be authenticated using an OAuth or Personal Access Token to use sudo' });
  });

  it('names an unknown user in a 404', async () => {
    expect(await site.api('/user?sudo=nobody-here')).toMatchObject({ status: 404, body: { message: "404 User with ID or username 'nobody-here' Not Found" } });
    expect((await site.api('/user?sudo=99999')).body.message).toContain("'99999'");
  });

  it('is 401 without credentials', async () => {
    expect((await site.api('/user?sudo=root', { as: null })).status).toBe(401);
  });
});
