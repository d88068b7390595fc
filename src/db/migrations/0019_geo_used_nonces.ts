import type { Migration } from '../migrate.js';

/**
 * The nonces of the single-call site-to-site tokens a site accepted, kept until each token expires
 * (a minute). In the database rather than in memory, so that a token seen before a restart or a
 * role change is still refused as a replay after it. Local to each site (db/local-tables.ts).
 */
export const geoUsedNonces: Migration = {
  version: 19,
  name: 'geo_used_nonces',
  sql: `
CREATE TABLE geo_used_nonces (
  nonce TEXT PRIMARY KEY,
  -- The token's exp, in seconds since the epoch: the row is pruned after it.
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX geo_used_nonces_expiry ON geo_used_nonces (expires_at);
`,
};
