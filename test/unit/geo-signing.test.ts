import { describe, expect, it } from 'vitest';
import { GEO_TOKEN_TTL_SECONDS, signGeoToken, verifyGeoToken } from '../../src/geo/signing.js';

const SECRET = 'a-secret-of-enough-length';

describe('site-to-site tokens', () => {
  it('verifies its own tokens and names the node', () => {
    const token = signGeoToken(SECRET, 'secondary-1');
    expect(verifyGeoToken(SECRET, token)).toMatchObject({ node: 'secondary-1' });
  });

  it('rejects another secret, a tampered payload, expiry and garbage', () => {
    const now = Date.now();
    const token = signGeoToken(SECRET, 'secondary-1', now);
    expect(verifyGeoToken('another-secret-entirely', token, now)).toBeNull();
    const [payload, mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), node: 'primary' })).toString('base64url');
    expect(verifyGeoToken(SECRET, `${forged}.${mac}`, now)).toBeNull();
    expect(verifyGeoToken(SECRET, token, now + (GEO_TOKEN_TTL_SECONDS + 1) * 1000)).toBeNull();
    expect(verifyGeoToken(SECRET, signGeoToken(SECRET, 'x', now + 10 * 60_000), now)).toBeNull();
    for (const garbage of ['', 'abc', 'a.b.c', '.', `${payload}.`]) expect(verifyGeoToken(SECRET, garbage, now)).toBeNull();
  });
});
