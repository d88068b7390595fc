import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasAuthorizationGuard, PUBLIC_ROUTES, renderRouteIndex, routeEntry, routeIndex, withRouteIndex } from '../../src/api/route-index.js';
import { loadProject, requireAbility, signedIn } from '../../src/api/middleware/guards.js';
import { uploadedFile } from '../../src/api/middleware/value-guards.js';

const README = path.resolve(import.meta.dirname, '../../README.md');

describe('the route index', () => {
  const entries = routeIndex();

  it('is the README route index (run `npm run routes:readme` after changing a route)', () => {
    const readme = readFileSync(README, 'utf8');
    expect(withRouteIndex(readme, renderRouteIndex(entries))).toBe(readme);
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
    const entry = routeEntry({ method: 'post', path: '/projects/:id/things/:thing_id', guards: [signedIn, uploadedFile('file'), loadProject(), requireAbility('push_code')], handler: () => null });
    expect(entry).toMatchObject({ signIn: true, admin: false, edition: null, subject: 'project', abilities: ['push_code'], pathParams: ['id', 'thing_id'], params: ['file'] });
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

  it('catches a route added without a guard', () => {
    expect(hasAuthorizationGuard(routeEntry({ method: 'delete', path: '/projects/:id/oops', guards: [uploadedFile('file')], handler: () => null }))).toBe(false);
  });
});
