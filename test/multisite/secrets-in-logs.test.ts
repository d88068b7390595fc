import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEO_SECRET, ROOT_TOKEN, SiteProcess, waitFor } from '../helpers/multisite.js';

/**
 * Every log line of a real site process, at debug level, over a run that creates and uses every
 * kind of secret the site knows (passwords, personal, impersonation and OAuth tokens, refresh
 * tokens, session cookies, webhook tokens and URL passwords, import and push mirror URL passwords) the ways
 * clients send them (headers, query parameters, form bodies), right and wrong: none of them may
 * appear in any line.
 */
describe('secrets never reach the log', () => {
  let site: SiteProcess;
  const secrets = new Map<string, string>();
  const keep = (what: string, value: string) => {
    expect(value.length, what).toBeGreaterThanOrEqual(8);
    secrets.set(what, value);
    return value;
  };

  beforeAll(async () => {
    site = await SiteProcess.create({ name: 'logs', role: 'primary', env: { GEOFORGE_LOG_LEVEL: 'debug' } });
    await site.start();
  });
  afterAll(async () => {
    await site?.destroy();
  });

  it('greps every line for every token and password the run created', async () => {
    keep('root token', ROOT_TOKEN);
    keep('geo secret', GEO_SECRET);
    const password = keep('password', `Pw-${randomBytes(9).toString('hex')}`);
    const username = `logger${randomBytes(3).toString('hex')}`;
    const user = await site.api('/users', { method: 'POST', body: { username, name: 'Logger', email: `${username}@example.com`, password, skip_confirmation: true } });
    expect(user.status, user.text).toBe(201);

    const pat = await site.api(`/users/${user.body.id}/personal_access_tokens`, { method: 'POST', body: { name: 'pat', scopes: ['api'] } });
    expect(pat.status, pat.text).toBe(201);
    const patToken = keep('personal access token', pat.body.token);
    const imp = await site.api(`/users/${user.body.id}/impersonation_tokens`, { method: 'POST', body: { name: 'imp', scopes: ['api'] } });
    expect(imp.status, imp.text).toBe(201);
    const impToken = keep('impersonation token', imp.body.token);

    const oauth = await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'password', username, password } });
    expect(oauth.status, oauth.text).toBe(200);
    const accessToken = keep('oauth access token', oauth.body.access_token);
    const refreshToken = keep('oauth refresh token', oauth.body.refresh_token);
    const refreshed = await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'refresh_token', refresh_token: refreshToken } });
    expect(refreshed.status, refreshed.text).toBe(200);
    // A refresh revokes the old access token: the new one is used below.
    const liveToken = keep('refreshed access token', refreshed.body.access_token);
    const wrongPassword = keep('wrong password', `Wrong-${randomBytes(6).toString('hex')}`);
    expect((await site.api('/oauth/token', { as: null, method: 'POST', body: { grant_type: 'password', username, password: wrongPassword } })).status).toBe(400);

    const signIn = await site.api('/users/sign_in', { as: null, method: 'POST', body: `login=${username}&password=${encodeURIComponent(password)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(signIn.status, signIn.text).toBe(302);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    keep('session cookie', cookie.split('=')[1]!);

    // Each credential used in each way a client sends it, and a wrong one of each shape.
    expect((await site.api('/user', { as: patToken })).status).toBe(200);
    expect((await site.api(`/user?private_token=${patToken}`, { as: null })).status).toBe(200);
    expect((await site.api('/user', { as: impToken })).status).toBe(200);
    expect((await site.api('/user', { as: null, headers: { authorization: `Bearer ${liveToken}` } })).status).toBe(200);
    expect((await site.api('/user', { as: null, headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(401);
    expect((await site.api(`/user?access_token=${liveToken}`, { as: null })).status).toBe(200);
    expect((await site.api('/user', { as: null, headers: { cookie } })).status).toBe(200);
    const wrongToken = keep('wrong token', `glpat-${randomBytes(10).toString('hex')}`);
    expect((await site.api('/user', { as: wrongToken })).status).toBe(401);
    expect((await site.api(`/user?private_token=${wrongToken}`, { as: null })).status).toBe(401);

    // A webhook with a secret token and a password in its URL, delivered to a port nobody listens on (errors logged).
    const project = await site.api('/projects', { as: patToken, method: 'POST', body: { name: `logged-${randomBytes(3).toString('hex')}` } });
    expect(project.status, project.text).toBe(201);
    const hookToken = keep('webhook token', `hook-${randomBytes(8).toString('hex')}`);
    const hookPassword = keep('webhook URL password', `hookpw-${randomBytes(8).toString('hex')}`);
    const hook = await site.api(`/projects/${project.body.id}/hooks`, { as: patToken, method: 'POST', body: { url: `http://user:${hookPassword}@127.0.0.1:1/hook`, token: hookToken, issues_events: true } });
    expect(hook.status, hook.text).toBe(201);
    expect((await site.api(`/projects/${project.body.id}/issues`, { as: patToken, method: 'POST', body: { title: 'fires the hook' } })).status).toBe(201);

    // An import whose URL carries a password, from a port nobody listens on.
    const importPassword = keep('import URL password', `imppw-${randomBytes(8).toString('hex')}`);
    const imported = await site.api('/projects', { as: patToken, method: 'POST', body: { name: `imported-${randomBytes(3).toString('hex')}`, import_url: `http://someone:${importPassword}@127.0.0.1:1/x.git` } });
    expect(imported.status, imported.text).toBe(201);
    await waitFor(async () => ['failed', 'finished'].includes((await site.api(`/projects/${imported.body.id}`, { as: patToken })).body.import_status), { timeoutMs: 20_000 });

    // A push mirror whose URL carries a password, pushed to a port nobody listens on (the failed update logged).
    const mirrorPassword = keep('push mirror URL password', `mirrorpw-${randomBytes(8).toString('hex')}`);
    const mirrored = await site.api('/projects', { as: patToken, method: 'POST', body: { name: `mirrored-${randomBytes(3).toString('hex')}`, initialize_with_readme: true } });
    expect(mirrored.status, mirrored.text).toBe(201);
    const mirror = await site.api(`/projects/${mirrored.body.id}/remote_mirrors`, { as: patToken, method: 'POST', body: { url: `http://bot:${mirrorPassword}@127.0.0.1:1/m.git`, enabled: true } });
    expect(mirror.status, mirror.text).toBe(201);
    await waitFor(async () => (await site.api(`/projects/${mirrored.body.id}/remote_mirrors/${mirror.body.id}`, { as: patToken })).body.update_status === 'to_retry', { timeoutMs: 20_000 });

    // Revoking and failing with a revoked token.
    expect((await site.api(`/users/${user.body.id}/impersonation_tokens/${imp.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api('/user', { as: impToken })).status).toBe(401);

    // Stopping flushes the log; every line it wrote is in `output`.
    await site.kill('SIGTERM');
    const lines = site.output.split('\n').filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(30);
    const leaks: string[] = [];
    for (const line of lines) {
      for (const [what, value] of secrets) {
        if (line.includes(value) || line.includes(encodeURIComponent(value))) leaks.push(`${what} in: ${line.slice(0, 300)}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
