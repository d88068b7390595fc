import { expect } from 'vitest';
import type { TestUser } from './factories.js';
import { eventLogHead, replicatedSince, type TestSite } from './site.js';

/** A reads test's seeding POST: as root unless `as` names a token, expecting 201 (the message names the path); the created resource. */
export function seeder(site: TestSite) {
  return async (path: string, body: Record<string, unknown>, as?: string): Promise<any> => {
    const response = await site.api(path, { method: 'POST', body, as });
    expect(response.status, `${path}: ${response.text}`).toBe(201);
    return response.body;
  };
}

/** The callers' own once-a-day activity stamps are written by their first request, not by the reads: made here, before them. */
export async function stampCallers(site: TestSite, member: TestUser): Promise<void> {
  for (const as of [undefined, member.token]) await site.api('/user', { as });
}

/**
 * Asks each of `reads` (a route's `path` as the route table names it, and the `url` it was filled
 * into) as the admin, the member and anonymously: every answer is below 500, and 200 to the admin
 * when `adminOk`; then no row that replicates was written meanwhile.
 */
export async function expectReadsWriteNothing(site: TestSite, member: TestUser, reads: { path: string; url: string }[], options: { adminOk: boolean }): Promise<void> {
  const before = eventLogHead(site);
  for (const { path, url } of reads) {
    for (const as of [undefined, member.token, null]) {
      const response = await site.api(url, { as });
      expect(response.status, `${path} as ${as === null ? 'anonymous' : as ? 'member' : 'admin'}: ${response.text}`).toBeLessThan(500);
      if (options.adminOk && as === undefined) expect(response.status, `${path}: ${response.text}`).toBe(200);
    }
  }
  expect(replicatedSince(site, before)).toEqual([]);
}
