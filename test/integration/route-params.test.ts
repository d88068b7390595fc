import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeIndex } from '../../src/api/route-index.js';
import { recordUndeclaredReads } from '../../src/api/routes.js';
import { mergeabilityChecksSettled } from '../../src/services/merge-requests/mergeability.js';
import { startSite, type TestSite } from '../helpers/site.js';
import { fill, seedWorld, type World } from '../fuzz/world.js';

/**
 * The route index's parameters are what the routes read (issue 20): one request to every route of
 * the table, as the admin on the seeded world (test/fuzz/world.ts), with `req.input` wrapped in a
 * Proxy that records every name a guard or handler reads that none of the route's guards declares
 * (src/api/routes.ts recordUndeclaredReads). Requests carry no parameters, so each runs as far as
 * an empty request goes; readParams reads a whole schema before it refuses one of its names.
 * test/unit/route-index.test.ts holds the static half: no file of src/api reads `req.input`
 * outside the declaring guards.
 */

/** Routes that take the world away, sent last (in this order) so that they cannot stop the others. */
const LAST = [
  'post /projects/:id/archive',
  'put /projects/:id/transfer',
  'post /groups/:id/transfer',
  'put /groups/:id/transfer',
  'post /groups/:id/projects/:project_id',
  'delete /projects/:id/members/:user_id',
  'delete /groups/:id/members/:user_id',
  'post /users/:id/block',
  'delete /personal_access_tokens/:id',
  'delete /personal_access_tokens/self',
  'post /geo_nodes/:id/repair',
  'post /geo_nodes/:id/promote',
  'delete /projects/:id',
  'delete /groups/:id',
  'delete /users/:id',
];

let site: TestSite;
let world: World;

beforeAll(async () => {
  site = await startSite();
  world = await seedWorld(site);
}, 120_000);
afterAll(() => site?.stop());

describe('the parameters each route declares', () => {
  it('cover every parameter a route reads', async () => {
    const key = (route: { method: string; path: string }) => `${route.method} ${route.path}`;
    const order = (route: { method: string; path: string }) => LAST.indexOf(key(route)) + 1 || (route.method === 'get' ? -2 : -1);
    const routes = [...routeIndex()].sort((a, b) => order(a) - order(b));
    const undeclared = new Map<string, Set<string>>();
    const stop = recordUndeclaredReads((route, param) => undeclared.set(route, (undeclared.get(route) ?? new Set()).add(param)));
    const statuses: Record<string, number> = {};
    try {
      for (const route of routes) {
        const response = await site.api(fill(world, route.path), { method: route.method.toUpperCase(), ...(route.method === 'get' ? {} : { body: {} }) });
        statuses[key(route)] = response.status;
        if (response.status < 400) await mergeabilityChecksSettled(site.site.ctx);
      }
    } finally {
      stop();
    }
    const found = Object.fromEntries([...undeclared].map(([route, names]) => [`${route} (${statuses[route]})`, [...names].sort()]));
    expect(found).toEqual({});
    // A handler taking a guard's value that the route does not list fails (500) rather than reading.
    expect(Object.entries(statuses).filter(([, status]) => status >= 500)).toEqual([]);
    // The requests reached past the guards often enough to mean something.
    expect(Object.values(statuses).filter((status) => status < 400).length).toBeGreaterThan(200);
  }, 300_000);
});
