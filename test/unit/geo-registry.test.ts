import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import type { BlobEvent } from '../../src/geo/blobs.js';
import { registryBlobCounts } from '../../src/geo/registry/counts.js';
import { reconcileRegistryPage, scheduleMissingItems } from '../../src/geo/registry/inventory.js';
import { finishFailed, finishSynced, pathInUse, removeItem, resetFailed, sweepStarted } from '../../src/geo/registry/queue.js';
import { recordBlobEvent } from '../../src/geo/registry/record-event.js';
import { backfillRunner } from '../../src/geo/sync/backfill.js';
import { claimDueItems } from '../helpers/geo-blobs.js';

/** A secondary's database without foreign keys, so inventory rows need no projects behind them. */
function registryDb() {
  const db = new Database(':memory:');
  migrate(db);
  db.pragma('foreign_keys = OFF');
  return db;
}

const sha = (char: string) => char.repeat(64);
const lfsEvent = (id: number, action: BlobEvent['action'] = 'created'): BlobEvent => ({
  type: 'lfs_object',
  action,
  id,
  project_id: null,
  path: `lfs-objects/aa/bb/${sha('a')}`,
  checksum: action === 'deleted' ? null : sha('a'),
  size: 3,
});
const policy = { baseMs: 1000, capMs: 60_000 };
const FILES = ['lfs_object', 'job_artifact', 'attachment'] as const;
const row = (db: Database.Database, id: number) => db.prepare('SELECT * FROM geo_registry WHERE item_id = ?').get(id) as Record<string, unknown>;

describe('registry queue', () => {
  it('claims pending items oldest first within the limit, then due retries, and marks them started', () => {
    const db = registryDb();
    for (const id of [1, 2, 3]) recordBlobEvent(db, lfsEvent(id), 1000);
    const claimed = claimDueItems(db, FILES, 2, 5000);
    expect(claimed.map((item) => item.item_id)).toEqual([1, 2]);
    expect(row(db, 1).state).toBe('started');
    expect(claimDueItems(db, ['repository', 'wiki'], 10, 5000)).toEqual([]);
    expect(finishFailed(db, claimed[0], { failureType: 'sync', message: 'boom', missingOnPrimary: false }, 5000, policy)).toBe('failed');
    expect(claimDueItems(db, FILES, 10, 5000).map((item) => item.item_id)).toEqual([3]);
    const retryAt = row(db, 1).retry_at as number;
    expect(retryAt).toBeGreaterThanOrEqual(5800);
    expect(claimDueItems(db, FILES, 10, retryAt).map((item) => item.item_id)).toEqual([1]);
  });

  it('coalesces events during a sync into one more sync, never synced at the old version', () => {
    const db = registryDb();
    recordBlobEvent(db, lfsEvent(1), 1000);
    const [item] = claimDueItems(db, FILES, 1, 2000);
    for (let i = 0; i < 10; i++) recordBlobEvent(db, lfsEvent(1, 'updated'), 3000);
    expect(row(db, 1).state).toBe('started');
    expect(finishSynced(db, item, sha('a'), 4000)).toBe('superseded');
    expect(row(db, 1)).toMatchObject({ state: 'pending', retry_at: null });
    const [again] = claimDueItems(db, FILES, 5, 5000);
    expect(finishSynced(db, again, sha('a'), 6000)).toBe('synced');
    expect(row(db, 1)).toMatchObject({ state: 'synced', checksum: sha('a'), last_successful_sync_at: 6000, event_at: null, retry_count: 0 });
    expect(claimDueItems(db, FILES, 5, 7000)).toEqual([]);
  });

  it('counts retries with the real text, and a repair resets them', () => {
    const db = registryDb();
    recordBlobEvent(db, lfsEvent(1), 1000);
    let now = 1000;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const [item] = claimDueItems(db, FILES, 1, now);
      finishFailed(db, item, { failureType: 'checksum_mismatch', message: `attempt ${attempt}`, missingOnPrimary: true }, now, policy);
      now = row(db, 1).retry_at as number;
    }
    expect(row(db, 1)).toMatchObject({ state: 'failed', retry_count: 3, failure_type: 'checksum_mismatch', last_sync_failure: 'attempt 3', missing_on_primary: 1 });
    expect(resetFailed(db)).toBe(1);
    expect(row(db, 1)).toMatchObject({ state: 'pending', retry_count: 0, retry_at: null });
  });

  it('sweeps items a crash left started back to pending', () => {
    const db = registryDb();
    recordBlobEvent(db, lfsEvent(1), 1000);
    claimDueItems(db, FILES, 1, 1000);
    expect(sweepStarted(db)).toBe(1);
    expect(row(db, 1).state).toBe('pending');
  });

  it('drops a deleted item only when no event revived it', () => {
    const db = registryDb();
    recordBlobEvent(db, lfsEvent(1), 1000);
    recordBlobEvent(db, lfsEvent(1, 'deleted'), 2000);
    const [item] = claimDueItems(db, FILES, 1, 3000);
    expect(item.to_delete).toBe(1);
    expect(removeItem(db, item)).toBe('deleted');
    expect(row(db, 1)).toBeUndefined();
  });
});

describe('a deleted item sharing its path', () => {
  it('keeps the file when a live item of the project uses the same path (an artifact replaced by one of the same name)', () => {
    const db = registryDb();
    const artifact = (id: number, action: BlobEvent['action']): BlobEvent => ({
      type: 'job_artifact',
      action,
      id,
      project_id: 9,
      path: 'artifacts/9/4/artifacts.zip',
      checksum: action === 'deleted' ? null : sha('d'),
      size: action === 'deleted' ? null : 5,
    });
    recordBlobEvent(db, artifact(1, 'created'), 1000);
    recordBlobEvent(db, artifact(1, 'deleted'), 2000);
    recordBlobEvent(db, artifact(2, 'created'), 2000);
    const [old] = claimDueItems(db, ['job_artifact'], 1, 3000);
    expect(old).toMatchObject({ item_id: 1, to_delete: 1 });
    expect(pathInUse(db, old)).toBe(true);
    const [replacement] = claimDueItems(db, ['job_artifact'], 1, 3000);
    finishSynced(db, replacement, sha('d'), 3000);
    recordBlobEvent(db, artifact(2, 'deleted'), 4000);
    expect(pathInUse(db, old)).toBe(false);
  });
});

describe('backfill and counts', () => {
  it('stops a backfill in flight at its next page, before the database closes', async () => {
    const db = registryDb();
    const insert = db.prepare("INSERT INTO lfs_objects (id, oid, size, created_at) VALUES (?, ?, ?, '2026-01-01')");
    for (let id = 1; id <= 50; id++) insert.run(id, String(id).padStart(64, '0'), id);
    const errors: unknown[] = [];
    let pages = 0;
    let firstPage!: () => void;
    const scheduled = new Promise<void>((resolve) => (firstPage = resolve));
    const onScheduled = () => {
      pages++;
      firstPage();
    };
    const runner = backfillRunner({ db: () => db, ready: () => db.open, batch: 1, onScheduled }, (error) => errors.push(error));
    const run = runner.run();
    await scheduled;
    await runner.stop();
    db.close();
    await run;
    expect(errors).toEqual([]);
    expect(pages).toBeGreaterThan(0);
    expect(pages).toBeLessThan(50);
    await runner.run();
    expect(errors).toEqual([]);
  });

  it('runs again after a run asked for while not ready (a cron tick before the bootstrap)', async () => {
    const db = registryDb();
    db.prepare("INSERT INTO lfs_objects (id, oid, size, created_at) VALUES (1, ?, 1, '2026-01-01')").run('1'.repeat(64));
    let ready = false;
    let scheduled = 0;
    const runner = backfillRunner({ db: () => db, ready: () => ready, batch: 10, onScheduled: () => scheduled++ }, (error) => {
      throw error;
    });
    await runner.run();
    expect(scheduled).toBe(0);
    ready = true;
    await runner.run();
    expect(scheduled).toBe(1);
    expect(row(db, 1)).toMatchObject({ state: 'pending' });
  });

  it('schedules inventory items the registry lacks, page by page, and marks items gone from the primary', () => {
    const db = registryDb();
    const insert = db.prepare("INSERT INTO lfs_objects (id, oid, size, created_at) VALUES (?, ?, ?, '2026-01-01')");
    for (let id = 1; id <= 5; id++) insert.run(id, String(id).repeat(64).slice(0, 64), id);
    recordBlobEvent(db, lfsEvent(2), 1000);
    const first = scheduleMissingItems(db, 'lfs_object', 0, 3, 2000);
    expect(first).toEqual({ lastKey: 3, added: 2 });
    expect(scheduleMissingItems(db, 'lfs_object', 3, 3, 2000)).toEqual({ lastKey: null, added: 2 });
    expect(row(db, 4)).toMatchObject({ state: 'pending', path: `lfs-objects/44/44/${'4'.repeat(64)}`, expected_checksum: '4'.repeat(64) });
    expect(registryBlobCounts(db).lfs_objects).toEqual({ count: 5, synced: 0, failed: 0 });

    db.prepare('DELETE FROM lfs_objects WHERE id = 5').run();
    const [synced] = claimDueItems(db, FILES, 1, 3000);
    finishSynced(db, synced, synced.expected_checksum, 3000);
    expect(reconcileRegistryPage(db, 0, 100)).toEqual({ lastId: null, deleted: 1, stale: 0 });
    expect(row(db, 5)).toMatchObject({ to_delete: 1, state: 'pending' });
    expect(registryBlobCounts(db).lfs_objects).toEqual({ count: 4, synced: 1, failed: 0 });
  });

  it('syncs a repository again when the primary checksum moved', () => {
    const db = registryDb();
    db.prepare("INSERT INTO projects (id, namespace_id, name, path, runners_token, last_activity_at, created_at, updated_at) VALUES (7, 1, 'p', 'p', 't', 'now', 'now', 'now')").run();
    db.prepare('INSERT INTO repository_states (project_id, repository_checksum) VALUES (7, ?)').run(sha('b'));
    scheduleMissingItems(db, 'repository', 0, 10, 1000);
    const [item] = claimDueItems(db, ['repository'], 1, 1000);
    expect(item).toMatchObject({ item_id: 7, expected_checksum: sha('b') });
    finishSynced(db, item, sha('b'), 2000);
    expect(reconcileRegistryPage(db, 0, 10).stale).toBe(0);
    db.prepare('UPDATE repository_states SET repository_checksum = ?').run(sha('c'));
    expect(reconcileRegistryPage(db, 0, 10).stale).toBe(1);
    expect(row(db, 7).state).toBe('pending');
  });
});
