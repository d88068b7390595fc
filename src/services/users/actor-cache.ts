import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import type { Actor } from './authentication.js';

const MAX_ENTRIES = 10_000;

interface Entry {
  readonly actor: Actor;
  /** When the credential itself lapses (token expiry date, session end), in ms. */
  readonly validUntil: number;
}

interface Generation {
  stamp: string;
  entries: Map<string, Entry>;
}

const generations = new WeakMap<Db, Generation>();

const TOKEN_TABLES = ['personal_access_tokens', 'oauth_access_tokens', 'sessions'];

/**
 * TEMP triggers count this connection's own writes that can change a cached actor: any change to
 * a token or session, and an update or delete of a user some cached actor is. They live in this
 * connection only (nothing in the database file, nothing replicated) and fire for the API's
 * writes and the Geo applier's alike, so writing other users' rows, as most writes do, keeps the
 * cache. Installed after migrations (a rebuilt table would drop its temp triggers).
 */
function installChangeCounter(db: Db): void {
  const bump = 'BEGIN UPDATE temp.actor_changes SET n = n + 1; END;';
  const cached = 'WHEN OLD.id IN (SELECT id FROM temp.actor_users)';
  db.exec(`
    CREATE TEMP TABLE IF NOT EXISTS actor_changes (n INTEGER NOT NULL);
    INSERT INTO temp.actor_changes SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM temp.actor_changes);
    CREATE TEMP TABLE IF NOT EXISTS actor_users (id INTEGER PRIMARY KEY);
    CREATE TEMP TRIGGER IF NOT EXISTS actor_users_update AFTER UPDATE ON main.users ${cached} ${bump}
    CREATE TEMP TRIGGER IF NOT EXISTS actor_users_delete AFTER DELETE ON main.users ${cached} ${bump}
    ${TOKEN_TABLES.flatMap((table) => ['INSERT', 'UPDATE', 'DELETE'].map((op) => `CREATE TEMP TRIGGER IF NOT EXISTS actor_${table}_${op.toLowerCase()} AFTER ${op} ON main.${table} ${bump}`)).join('\n')}
  `);
}

/**
 * A stamp that changes whenever an actor may have: data_version moves on commits of other
 * connections (the CLI, a second process), temp.actor_changes on this connection's own writes
 * that touch a token, a session or a cached actor's user. Two reads are far cheaper than the
 * token and user lookups every authenticated request would otherwise pay.
 */
function stampOf(db: Db): string {
  return `${prepare(db, 'PRAGMA data_version').pluck().get() as number}:${prepare(db, 'SELECT n FROM temp.actor_changes').pluck().get() as number}`;
}

function generationOf(db: Db): Generation {
  let generation = generations.get(db);
  if (!generation) installChangeCounter(db);
  const stamp = stampOf(db);
  if (!generation || generation.stamp !== stamp) {
    if (generation) prepare(db, 'DELETE FROM temp.actor_users').run();
    generation = { stamp, entries: new Map() };
    generations.set(db, generation);
  }
  return generation;
}

/**
 * Resolved actors, kept only while nothing that could change them was written since: a revoked
 * token, a blocked or edited user, or any write by another connection empties the cache before
 * the next request reads it.
 */
export function cachedActor(db: Db, key: string, resolve: () => Entry | null): Actor | null {
  const generation = generationOf(db);
  const hit = generation.entries.get(key);
  if (hit && Date.now() < hit.validUntil) return hit.actor;
  const entry = resolve();
  if (!entry) return null;
  if (generation.entries.size >= MAX_ENTRIES) generation.entries.clear();
  prepare(db, 'INSERT OR IGNORE INTO temp.actor_users (id) VALUES (?)').run(entry.actor.user.id);
  generation.entries.set(key, entry);
  return entry.actor;
}
