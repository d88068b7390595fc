import Database from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { GEO_TOKEN_TTL_SECONDS, geoPathOf, signGeoToken, verifyGeoToken } from '../../src/geo/signing.js';
import { usedNonces } from '../../src/geo/used-nonces.js';

const SECRET = 'a-secret-of-enough-length';
const EVENTS = { method: 'GET', path: '/events' };

const dir = mkdtempSync(path.join(tmpdir(), 'geoforge-signing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A site's database file, migrated; opened again under the same name it is that site after a restart. */
function siteDb(name: string) {
  const db = new Database(path.join(dir, `${name}.sqlite3`));
  migrate(db);
  return db;
}

describe('site-to-site tokens', () => {
  it('verifies its own tokens and names the node', () => {
    const token = signGeoToken(SECRET, 'secondary-1', EVENTS);
    expect(verifyGeoToken(SECRET, token, EVENTS, usedNonces(siteDb('verifies')))).toMatchObject({ node: 'secondary-1', method: 'GET', path: '/events', prefix: false });
  });

  it('rejects another secret, a tampered payload, expiry and garbage', () => {
    const now = Date.now();
    const token = signGeoToken(SECRET, 'secondary-1', EVENTS, now);
    expect(verifyGeoToken('another-secret-entirely', token, EVENTS, null, now)).toBeNull();
    const [payload, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), node: 'primary' })).toString('base64url');
    expect(verifyGeoToken(SECRET, `${forged}.${mac}`, EVENTS, null, now)).toBeNull();
    expect(verifyGeoToken(SECRET, token, EVENTS, null, now + (GEO_TOKEN_TTL_SECONDS + 1) * 1000)).toBeNull();
    expect(verifyGeoToken(SECRET, signGeoToken(SECRET, 'x', EVENTS, now + 10 * 60_000), EVENTS, null, now)).toBeNull();
    for (const garbage of ['', 'abc', 'a.b.c', '.', `${payload}.`]) expect(verifyGeoToken(SECRET, garbage, EVENTS, null, now)).toBeNull();
  });

  it('binds a token to its method and path', () => {
    const token = signGeoToken(SECRET, 'secondary-1', { method: 'post', path: '/status' });
    expect(verifyGeoToken(SECRET, token, { method: 'GET', path: '/status' }, null)).toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'POST', path: '/nodes' }, null)).toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'POST', path: '/status/x' }, null)).toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'POST', path: '/status' }, null)).toMatchObject({ node: 'secondary-1' });
  });

  it('rejects a single-call token used twice, and forgets nonces once their tokens expired', () => {
    const now = Date.now();
    const replays = usedNonces(siteDb('replays'));
    const token = signGeoToken(SECRET, 'secondary-1', EVENTS, now);
    expect(verifyGeoToken(SECRET, token, EVENTS, replays, now)).not.toBeNull();
    expect(verifyGeoToken(SECRET, token, EVENTS, replays, now + 1000)).toBeNull();
    expect(verifyGeoToken(SECRET, signGeoToken(SECRET, 'secondary-1', EVENTS, now), EVENTS, replays, now)).not.toBeNull();
    expect(replays.use('n'.repeat(22), Math.floor(now / 1000) + 1, now)).toBe(true);
    expect(replays.use('n'.repeat(22), Math.floor(now / 1000) + 1, now + (GEO_TOKEN_TTL_SECONDS + 5) * 1000)).toBe(true);
  });

  it('still refuses a token used before a restart of the site, until it expires', () => {
    const now = Date.now();
    const token = signGeoToken(SECRET, 'secondary-1', EVENTS, now);
    const before = siteDb('restarted');
    expect(verifyGeoToken(SECRET, token, EVENTS, usedNonces(before), now)).not.toBeNull();
    before.close();
    const after = siteDb('restarted');
    expect(verifyGeoToken(SECRET, token, EVENTS, usedNonces(after), now + 2000)).toBeNull();
    expect(verifyGeoToken(SECRET, signGeoToken(SECRET, 'secondary-1', EVENTS, now + 2000), EVENTS, usedNonces(after), now + 2000)).not.toBeNull();
    after.close();
  });

  it('lets a git fetch token cover its own repository only, with GET and POST', () => {
    const replays = usedNonces(siteDb('fetch'));
    const token = signGeoToken(SECRET, 'secondary-1', { method: '*', path: '/git/repository/12.git/', prefix: true });
    expect(verifyGeoToken(SECRET, token, { method: 'GET', path: '/git/repository/12.git/info/refs' }, replays)).not.toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'POST', path: '/git/repository/12.git/git-upload-pack' }, replays)).not.toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'POST', path: '/git/repository/12.git/git-upload-pack' }, replays)).not.toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'GET', path: '/git/repository/13.git/info/refs' }, replays)).toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'GET', path: '/git/repository/12.git/../13.git/info/refs' }, replays)).toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'DELETE', path: '/git/repository/12.git/x' }, replays)).toBeNull();
    expect(verifyGeoToken(SECRET, token, { method: 'GET', path: '/events' }, replays)).toBeNull();
  });

  it('refuses tokens of a release before scopes (no method, path or nonce)', () => {
    const token = signGeoToken(SECRET, 'secondary-1', EVENTS);
    const [payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const { method: _m, path: _p, nonce: _n, prefix: _x, ...old } = claims;
    const oldPayload = Buffer.from(JSON.stringify(old)).toString('base64url');
    const oldToken = `${oldPayload}.${createHmac('sha256', SECRET).update(oldPayload).digest('base64url')}`;
    expect(verifyGeoToken(SECRET, oldToken, EVENTS, null)).toBeNull();
  });

  it('names the path under /api/v4/geo of a URL path', () => {
    expect(geoPathOf('/api/v4/geo/events?after=1')).toBe('/events');
    expect(geoPathOf('/prefix/api/v4/geo/git/repository/1.git/info/refs?service=git-upload-pack')).toBe('/git/repository/1.git/info/refs');
  });
});
