import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, type Dispatcher } from 'undici';
import { gzipSync } from 'node:zlib';
import { createUser, type TestUser } from '../helpers/factories.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';
import { createUser as createUserRow } from '../../src/services/users/users.js';

const parseLinks = (header: string) =>
  Object.fromEntries(header.split(', ').map((part) => {
    const [, url, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(part)!;
    return [rel, url];
  }));

describe('conventions shared by every endpoint', () => {
  let site: TestSite;
  let alice: TestUser;
  beforeAll(async () => {
    site = await startSite();
    alice = await createUser(site);
    // 250 rows in all: root, alice and 248 more, made through the service (each with its own namespace).
    for (let i = 0; i < 248; i++) {
      await createUserRow(site.site.db, { username: `bulk${i}`, email: `bulk${i}@example.com`, name: `Bulk ${i}` });
    }
  });
  afterAll(() => site.stop());

  describe('pagination', () => {
    it('pages a 250-row list with every header and absolute links', async () => {
      const first = await site.api(`/users?per_page=100&active=true&junk=${'x'.repeat(6000)}`);
      expect(first.body).toHaveLength(100);
      expect(first.headers).toMatchObject({ 'x-total': '250', 'x-total-pages': '3', 'x-per-page': '100', 'x-page': '1', 'x-next-page': '2', 'x-prev-page': '' });
      const links = parseLinks(String(first.headers.link));
      expect(Object.keys(links).sort()).toEqual(['first', 'last', 'next']);
      // A parameter the route does not declare is not repeated (four links of a long one would pass a client's header limit).
      expect(links.next).toBe(`${site.url}/api/v4/users?per_page=100&active=true&page=2`);
      expect(links.last).toContain('page=3');

      const seen = new Set<number>(first.body.map((user: { id: number }) => user.id));
      let next: string | undefined = links.next;
      let pages = 1;
      while (next) {
        const response: Dispatcher.ResponseData = await request(next, { headers: { 'private-token': ROOT_TOKEN } });
        const rows = (await response.body.json()) as { id: number }[];
        rows.forEach((row) => seen.add(row.id));
        pages++;
        next = parseLinks(String(response.headers.link)).next;
        if (pages === 3) {
          expect(rows).toHaveLength(50);
          expect(response.headers['x-next-page']).toBe('');
          expect(response.headers['x-prev-page']).toBe('2');
          expect(Object.keys(parseLinks(String(response.headers.link))).sort()).toEqual(['first', 'last', 'prev']);
        }
      }
      expect(pages).toBe(3);
      expect(seen.size).toBe(250);
    });

    it('defaults to 20 per page, caps per_page at 100 and answers [] past the end', async () => {
      const defaults = await site.api('/users');
      expect(defaults.body).toHaveLength(20);
      expect(defaults.headers['x-total-pages']).toBe('13');
      const capped = await site.api('/users?per_page=1000');
      expect(capped.body).toHaveLength(100);
      expect(capped.headers['x-per-page']).toBe('100');
      const past = await site.api('/users?page=99');
      expect(past.status).toBe(200);
      expect(past.body).toEqual([]);
      expect(past.headers['x-total-pages']).toBe('13');
      expect((await site.api('/users?page=abc')).body).toEqual({ message: 'page is invalid' });
    });

    it('keeps at least one page for an empty list', async () => {
      const empty = await site.api('/users?search=no-such-user-anywhere');
      expect(empty.body).toEqual([]);
      expect(empty.headers).toMatchObject({ 'x-total': '0', 'x-total-pages': '1', 'x-next-page': '' });
    });
  });

  describe('wire format', () => {
    it('sends application/json exactly and answers HEAD on GET routes with the same headers', async () => {
      const get = await site.api('/users?per_page=5');
      expect(get.headers['content-type']).toBe('application/json');
      const head = await site.api('/users?per_page=5', { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers['x-total']).toBe('250');
      expect(head.headers['content-type']).toBe('application/json');
      expect((await site.api(`/users/${alice.id}`, { method: 'HEAD' })).headers['content-type']).toBe('application/json');
    });

    it('reads parameters from JSON, urlencoded forms and the query string, ignoring nulls and unknown names', async () => {
      const user = await createUser(site);
      const base = `/users/${user.id}/impersonation_tokens`;
      const json = await site.api(`${base}?name=from-query`, { method: 'POST', body: { scopes: ['api'], expires_at: null, unknown_param: 1 } });
      expect(json.body).toMatchObject({ name: 'from-query', expires_at: null });

      const form = await request(`${site.url}/api/v4${base}`, {
        method: 'POST',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'name=form&scopes[]=api&scopes[]=read_user',
      });
      expect(((await form.body.json()) as { scopes: string[] }).scopes).toEqual(['api', 'read_user']);
      const csv = await site.api(`${base}?name=csv&scopes=api,read_user`, { method: 'POST' });
      expect(csv.body.scopes).toEqual(['api', 'read_user']);
    });

    it('reads booleans in every spelling clients use', async () => {
      const user = await createUser(site);
      for (const [value, expected] of [['True', true], ['false', false], ['1', true], ['0', false], ['yes', true], ['NO', false]] as const) {
        const response = await site.api(`/users/${user.id}?external=${value}`, { method: 'PUT', body: {} });
        expect(response.body.external).toBe(expected);
      }
      const json = await site.api(`/users/${user.id}`, { method: 'PUT', body: { external: true } });
      expect(json.body.external).toBe(true);
    });

    it('rejects malformed bodies with a 400, never a 500', async () => {
      const response = await request(`${site.url}/api/v4/users`, {
        method: 'POST',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
        body: '{"email": ',
      });
      expect(response.statusCode).toBe(400);
      expect(await response.body.json()).toEqual({ message: 'The request body is not valid JSON' });
      const multipart = await request(`${site.url}/api/v4/users`, {
        method: 'POST',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'multipart/form-data; boundary=xyz' },
        body: '--xyz\r\nContent-Disposition: form-data; name="email"\r\n\r\nunterminated',
      });
      expect(multipart.statusCode).toBe(400);
      await multipart.body.text();
    });

    it('reads JSON bodies as body-parser does: objects only, a BOM or charset allowed, empty as no parameters', async () => {
      const user = await createUser(site);
      const put = (body: string | Buffer, contentType = 'application/json') =>
        request(`${site.url}/api/v4/users/${user.id}`, { method: 'PUT', headers: { 'private-token': ROOT_TOKEN, 'content-type': contentType }, body });
      const scalar = await put('"bio"');
      expect(scalar.statusCode).toBe(400);
      expect(await scalar.body.json()).toEqual({ message: 'The request body is not valid JSON' });
      const bom = await put(`\uFEFF${JSON.stringify({ bio: 'with a BOM' })}`, 'application/json; charset=UTF-8');
      expect(bom.statusCode).toBe(200);
      expect(((await bom.body.json()) as { bio: string }).bio).toBe('with a BOM');
      const empty = await put('');
      expect(empty.statusCode).toBe(200);
      expect(((await empty.body.json()) as { bio: string }).bio).toBe('with a BOM');
      const gzipped = await request(`${site.url}/api/v4/users/${user.id}`, {
        method: 'PUT',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzipSync(JSON.stringify({ bio: 'gzipped' })),
      });
      expect(((await gzipped.body.json()) as { bio: string }).bio).toBe('gzipped');
    });

    it('resolves ids given as URL-encoded full paths', async () => {
      const byPath = await site.api(`/namespaces/${encodeURIComponent(alice.username)}`, { as: alice.token });
      expect(byPath.body).toMatchObject({ path: alice.username, kind: 'user', full_path: alice.username });
      const byId = await site.api(`/namespaces/${byPath.body.id}`, { as: alice.token });
      expect(byId.body).toEqual(byPath.body);
      expect((await site.api(`/namespaces/${encodeURIComponent('no/such/path')}`)).body).toEqual({ message: '404 Namespace Not Found' });
      // Another user's namespace is not visible, which reads as not found.
      expect((await site.api('/namespaces/root', { as: alice.token })).status).toBe(404);
      expect((await site.api('/namespaces/root')).status).toBe(200);
      const mine = await site.api('/namespaces', { as: alice.token });
      expect(mine.body.map((ns: { path: string }) => ns.path)).toEqual([alice.username]);
    });
  });

  describe('errors', () => {
    it('uses the SPEC body for each kind', async () => {
      expect(await site.api('/no/such/route')).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
      expect(await site.api('/user', { as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      expect(await site.api('/users/424242')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
      expect(await site.api('/users', { method: 'POST', body: {} })).toMatchObject({ status: 400, body: { message: 'email is missing' } });
      const validation = await site.api('/users', { method: 'POST', body: { email: 'bad', username: 'okname', name: 'N', password: 'password1' } });
      expect(validation).toMatchObject({ status: 400, body: { message: { email: ['is invalid'] } } });
      expect(await site.api('/user/activities', { as: alice.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
      expect((await site.api('/oauth/nothing', { as: null })).body).toEqual({ error: '404 Not Found' });
    });
  });

  describe('metrics and logs', () => {
    it('counts requests by route template and status', async () => {
      await site.api(`/users/${alice.id}`);
      const metrics = await site.api('/-/metrics', { as: null });
      expect(metrics.status).toBe(200);
      expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="\/api\/v4\/users\/:id",status="200"\} \d+/);
      expect(metrics.text).toMatch(/http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/v4\/users\/:id",status="200"\}/);
      expect(metrics.text).not.toContain(`/users/${alice.id}"`);
    });
  });
});
