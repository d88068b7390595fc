import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import { GEO_TOKEN_TTL_SECONDS, type ReplayGuard } from './signing.js';

/** When each database was last swept of expired nonces (seconds); a sweep a token lifetime at most. */
const nextSweep = new WeakMap<Db, number>();

/**
 * The replay guard of a site: a nonce is good once until its token expires, across restarts and
 * role changes, since the table outlives both.
 */
export function usedNonces(db: Db): ReplayGuard {
  return {
    use(nonce, exp, now = Date.now()) {
      const seconds = now / 1000;
      if (seconds >= (nextSweep.get(db) ?? 0)) {
        prepare(db, 'DELETE FROM geo_used_nonces WHERE expires_at < ?').run(Math.floor(seconds));
        nextSweep.set(db, seconds + GEO_TOKEN_TTL_SECONDS);
      }
      return prepare(db, 'INSERT OR IGNORE INTO geo_used_nonces (nonce, expires_at) VALUES (?, ?)').run(nonce, exp).changes === 1;
    },
  };
}
