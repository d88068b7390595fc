import express, { type NextFunction, type Request, type Response } from 'express';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { hasAuthorizationGuard, PUBLIC_ROUTES, renderRouteIndex, ROUTE_INDEX_DOC, routeEntry, routeIndex, withRouteIndex } from '../../src/api/route-index.js';
import { loadProject, requireAbility, signedIn } from '../../src/api/middleware/guards.js';
import { paramsGuard, uploadedFile } from '../../src/api/middleware/value-guards.js';
import { paged } from '../../src/api/pagination.js';
import { int, required, str } from '../../src/api/params.js';
import { mountRoutes, recordUndeclaredReads, type Route } from '../../src/api/routes.js';
import type { SiteContext } from '../../src/site-context.js';

const ROUTE_DOC = path.resolve(import.meta.dirname, '../..', ROUTE_INDEX_DOC);
const API = path.resolve(import.meta.dirname, '../../src/api');

/**
 * Files under src/api that may read `req.input` or call readParams themselves, and why: everything
 * else reads its parameters through a guard that declares them (paramsGuard), so that the route
 * index lists them.
 */
const READS_INPUT: Record<string, string> = {
  'middleware/input.ts': 'builds req.input',
  'middleware/value-guards.ts': 'paramsGuard and uploadedFile, the declaring guards',
  'middleware/authenticate.ts': 'private_token and access_token, read for every request before the route',
  'middleware/sudo.ts': 'sudo, read for every request before the route',
  'routes.ts': 'recordUndeclaredReads wraps req.input',
  'users/sign-in.ts': '/users/sign_in and /oauth/token, outside /api/v4 and the route table',
  'geo/site.ts': 'the site-to-site Geo API, outside the route table',
  'geo/transfers.ts': 'the site-to-site Geo API, outside the route table',
  'geo/failover.ts': 'the site-to-site Geo API, outside the route table',
  'geo/local-ops.ts': "the site's own CLI calls, outside the route table",
  'releases/params.ts': 'readParams on each item of assets[links] (nested objects; the route declares assets)',
};

describe('the route index', () => {
  const entries = routeIndex();

  it(`is the route index of ${ROUTE_INDEX_DOC} (run \`npm run routes:doc\` after changing a route)`, () => {
    const doc = readFileSync(ROUTE_DOC, 'utf8');
    expect(withRouteIndex(doc, renderRouteIndex(entries))).toBe(doc);
  });

  it('enumerates every domain, geo_nodes included, each method and path once', () => {
    expect(entries.length).toBeGreaterThan(400);
    const keys = entries.map((entry) => `${entry.method} ${entry.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const prefix of ['/version', '/users', '/projects/:id/issues', '/groups/:id/-/epics', '/geo_nodes', '/projects/:id/wikis', '/deploy_keys']) {
      expect(keys.some((key) => key.split(' ')[1]!.startsWith(prefix)), prefix).toBe(true);
    }
  });

  it('reads the guards as data: sign-in, admin, edition, subject, abilities and parameters', () => {
    const thing = paramsGuard('thingParams', { title: required(str()), weight: int() });
    const entry = routeEntry({ method: 'post', path: '/projects/:id/things/:thing_id', guards: [signedIn, uploadedFile('file'), loadProject(), requireAbility('push_code'), thing, paged], handler: () => null });
    expect(entry).toMatchObject({ signIn: true, admin: false, edition: null, subject: 'project', abilities: ['push_code'], pathParams: ['id', 'thing_id'], params: ['file', 'title', 'weight', 'page', 'per_page'] });
    const find = (method: string, p: string) => entries.find((e) => e.method === method && e.path === p)!;
    expect(find('post', '/users')).toMatchObject({ signIn: true, admin: true });
    expect(find('post', '/projects/:id/boards').edition).toBe('ee');
    expect(find('get', '/groups/:id/-/epics')).toMatchObject({ edition: 'ee', subject: 'group' });
    expect(find('get', '/geo_nodes').admin).toBe(true);
  });

  it('has an authorization guard on every route but the commented public ones', () => {
    const unguarded = entries.filter((entry) => !hasAuthorizationGuard(entry)).map((entry) => `${entry.method} ${entry.path}`);
    expect(unguarded.filter((key) => !(key in PUBLIC_ROUTES))).toEqual([]);
    // Every allow-listed route exists and still has no guard (else it leaves the list).
    expect(Object.keys(PUBLIC_ROUTES).sort()).toEqual(unguarded.sort());
  });

  it('lists the parameters of every route that reads some', () => {
    const find = (method: string, p: string) => entries.find((e) => e.method === method && e.path === p)!;
    expect(entries.filter((entry) => entry.params.length > 0).length).toBeGreaterThan(250);
    expect(find('get', '/projects/:id/issues').params).toEqual(expect.arrayContaining(['state', 'labels', 'milestone', 'page', 'per_page']));
    expect(find('post', '/projects/:id/repository/commits').params).toEqual(['branch', 'commit_message', 'start_branch', 'author_email', 'author_name', 'actions']);
    expect(find('put', '/projects/:id').params).toEqual(expect.arrayContaining(['avatar', 'name', 'visibility']));
    // Every list answers pages: a GET route that sends Link headers reads page and per_page.
    for (const entry of entries.filter((e) => e.guards.includes('paged'))) expect(entry.params, `${entry.method} ${entry.path}`).toEqual(expect.arrayContaining(['page', 'per_page']));
  });

  it('reads parameters only through guards that declare them', () => {
    const files = (readdirSync(API, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => file.split(path.sep).join('/'));
    const reading = files.filter((file) => /req\.input|readParams\(/.test(readFileSync(path.join(API, file), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')));
    expect(reading.filter((file) => !(file in READS_INPUT) && file !== 'params.ts')).toEqual([]);
    expect(Object.keys(READS_INPUT).filter((file) => !reading.includes(file))).toEqual([]);
  });

  it('records a parameter a route reads without declaring it', async () => {
    const declared = paramsGuard('declared', { title: str() });
    const routes: Route[] = [{ method: 'post', path: '/things', guards: [declared], handler: (_ctx, req, res) => res.json({ title: declared.of(req).title, sneaky: req.input.sneaky ?? null }) }];
    const app = express();
    app.use(express.json(), (req: Request, _res: Response, next: NextFunction) => {
      req.input = { ...req.body };
      next();
    });
    app.use(mountRoutes({} as SiteContext, routes));
    const server = app.listen(0);
    const reads: string[] = [];
    const stop = recordUndeclaredReads((route, param) => reads.push(`${route}: ${param}`));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things`;
      const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 't', sneaky: 's' }) });
      expect(await response.body.json()).toEqual({ title: 't', sneaky: 's' });
    } finally {
      stop();
      server.close();
    }
    expect(reads).toEqual(['post /things: sneaky']);
  });

  it('catches a route added without a guard', () => {
    expect(hasAuthorizationGuard(routeEntry({ method: 'delete', path: '/projects/:id/oops', guards: [uploadedFile('file')], handler: () => null }))).toBe(false);
  });
});
