import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { Db } from '../../db/connection.js';
import { BLOB_TYPES, type BlobType } from '../blobs.js';
import { isItemSelected } from '../selective-sync.js';
import { reconcileRegistryPage, scheduleMissingItems } from '../registry/inventory.js';

export interface BackfillDeps {
  db(): Db;
  ready(): boolean;
  readonly batch: number;
  /** Called after a pass that changed the registry: the scheduler has work. */
  onScheduled(): void;
  /** This node's id when it syncs selectively (geo/selective-sync.ts), else null. */
  selectiveNode?(): number | null;
}

export interface BackfillResult {
  added: number;
  deleted: number;
  stale: number;
}

/**
 * Compares the primary's inventory (the replicated database) with the registry, page by page, so
 * nothing depends on every event arriving: missing items become pending, items gone from the
 * primary are marked for deletion, repositories whose checksum moved are synced again. Each page is
 * one short transaction and the loop yields between pages; it stops if the database goes away.
 */
export async function runBackfill(deps: BackfillDeps, now = Date.now()): Promise<BackfillResult> {
  const result: BackfillResult = { added: 0, deleted: 0, stale: 0 };
  // A change of selection adds the newly selected items here and drops the deselected ones below.
  const node = deps.selectiveNode?.() ?? null;
  const holds = node === null ? undefined : (db: Db, type: BlobType, itemId: number, projectId: number | null) => isItemSelected(db, node, type, itemId, projectId);
  for (const type of BLOB_TYPES) {
    for (let after: number | null = 0; after !== null && deps.ready(); await yieldToLoop()) {
      const page = scheduleMissingItems(deps.db(), type, after, deps.batch, now, holds);
      result.added += page.added;
      after = page.lastKey;
      if (page.added) deps.onScheduled();
    }
  }
  for (let after: number | null = 0; after !== null && deps.ready(); await yieldToLoop()) {
    const page = reconcileRegistryPage(deps.db(), after, deps.batch, holds);
    result.deleted += page.deleted;
    result.stale += page.stale;
    after = page.lastId;
  }
  if (result.deleted || result.stale) deps.onScheduled();
  return result;
}

/**
 * Runs the backfill on demand and from its schedule, never twice at once: a request during a run
 * makes one more run. stop() ends the run in flight at its next page, before the database closes.
 */
export function backfillRunner(deps: BackfillDeps, onError: (error: unknown) => void): { run(): Promise<void>; stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const live: BackfillDeps = { ...deps, ready: () => !stopped && deps.ready() };
  const loop = async () => {
    // Yield first: without an await before it, a run while not ready would clear `running` before
    // run() assigned it, leaving a settled promise there and every later run() a no-op (a cron tick
    // between a secondary's start and its bootstrap then stopped its backfill for good).
    await Promise.resolve();
    do {
      again = false;
      if (live.ready()) await runBackfill(live).catch(onError);
    } while (again && !stopped);
    running = null;
  };
  return {
    run: () => {
      if (stopped) return Promise.resolve();
      if (running) {
        again = true;
        return running;
      }
      running = loop();
      return running;
    },
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}
