import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
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

/**
 * A stamp that changes whenever anything in the database changes: data_version moves on commits
 * of other connections (the CLI, a second process), total_changes() on this connection's own
 * writes (API writes, the Geo applier). Two pragma reads are far cheaper than a token and user
 * lookup, which is what every authenticated request would otherwise pay.
 */
function stampOf(db: Db): string {
  return `${prepare(db, 'PRAGMA data_version').pluck().get() as number}:${prepare(db, 'SELECT total_changes()').pluck().get() as number}`;
}

function generationOf(db: Db): Generation {
  const stamp = stampOf(db);
  let generation = generations.get(db);
  if (!generation || generation.stamp !== stamp) {
    generation = { stamp, entries: new Map() };
    generations.set(db, generation);
  }
  return generation;
}

/**
 * Resolved actors, kept only while the database is unchanged since they were resolved: a revoked
 * token, a blocked user or any other write empties the cache before the next request reads it.
 */
export function cachedActor(db: Db, key: string, resolve: () => Entry | null): Actor | null {
  const generation = generationOf(db);
  const hit = generation.entries.get(key);
  if (hit && Date.now() < hit.validUntil) return hit.actor;
  const entry = resolve();
  if (!entry) return null;
  if (generation.entries.size >= MAX_ENTRIES) generation.entries.clear();
  generation.entries.set(key, entry);
  return entry.actor;
}
