import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { insertGeoNode } from '../../src/geo/nodes.js';
import { finishFailed } from '../../src/geo/registry/queue.js';
import { recordBlobEvent } from '../../src/geo/registry/record-event.js';
import { listCurrentNodeFailures } from '../../src/geo/registry/failures.js';
import { claimDueItems } from '../helpers/geo-blobs.js';

const sha = (char: string) => char.repeat(64);
const policy = { baseMs: 1000, capMs: 60_000 };
const AT = Date.UTC(2026, 0, 2, 3, 4, 5);

/** A secondary's database with its own node row and one failed item of each type. */
function secondaryWithFailures() {
  const db = new Database(':memory:');
  migrate(db);
  insertGeoNode(db, { name: 'eu', url: 'http://eu.example.com', primary: false, enabled: true, files_max_capacity: 10, repos_max_capacity: 25, clone_protocol: 'http' });
  const events = [
    { type: 'repository', id: 7, project_id: 7, path: `repositories/@hashed/aa/bb/${sha('a')}.git`, failure: 'checksum_mismatch' },
    { type: 'wiki', id: 7, project_id: 7, path: `repositories/@hashed/aa/bb/${sha('a')}.wiki.git`, failure: 'sync' },
    { type: 'lfs_object', id: 3, project_id: null, path: `lfs-objects/bb/bb/${sha('b')}`, failure: 'sync' },
    { type: 'attachment', id: 4, project_id: 7, path: 'uploads/7/secret/a.txt', failure: 'verification' },
  ] as const;
  for (const event of events) {
    recordBlobEvent(db, { type: event.type, action: 'created', id: event.id, project_id: event.project_id, path: event.path, checksum: sha('c'), size: null }, AT);
  }
  for (const [index, item] of claimDueItems(db, ['repository', 'wiki', 'lfs_object', 'attachment'], 10, AT).entries()) {
    finishFailed(db, item, { failureType: events[index].failure, message: `${events[index].type} broke`, missingOnPrimary: events[index].type === 'lfs_object' }, AT, policy);
  }
  return db;
}

describe('GET /geo_nodes/current/failures (listCurrentNodeFailures)', () => {
  const page = (number: number, perPage: number) => ({ page: number, perPage, offset: (number - 1) * perPage });

  it("lists failed items of every type with the SPEC's fields and ours", () => {
    const result = listCurrentNodeFailures(secondaryWithFailures(), 'eu', {}, page(1, 20));
    expect(result.total).toBe(4);
    expect(result.rows[0]).toEqual({
      project_id: 7,
      last_repository_synced_at: '2026-01-02 03:04:05 UTC',
      last_repository_successful_sync_at: null,
      last_wiki_synced_at: null,
      last_wiki_successful_sync_at: null,
      repository_retry_count: 1,
      wiki_retry_count: null,
      last_repository_sync_failure: 'repository broke',
      last_wiki_sync_failure: null,
      type: 'repository',
      item_id: 7,
      failure_type: 'checksum_mismatch',
      retry_count: 1,
      retry_at: expect.stringMatching(/^2026-01-02 03:04:0[56] UTC$/),
      last_sync_failure: 'repository broke',
      missing_on_primary: false,
    });
    expect(result.rows[1]).toMatchObject({ type: 'wiki', wiki_retry_count: 1, last_wiki_sync_failure: 'wiki broke', repository_retry_count: null });
    expect(result.rows[2]).toMatchObject({ type: 'lfs_object', project_id: null, missing_on_primary: true, repository_retry_count: null, wiki_retry_count: null });
  });

  it('filters by type and failure_type and pages in SQL', () => {
    const db = secondaryWithFailures();
    expect(listCurrentNodeFailures(db, 'eu', { type: 'wiki' }, page(1, 20)).rows.map((row) => row.type)).toEqual(['wiki']);
    expect(listCurrentNodeFailures(db, 'eu', { failure_type: 'sync' }, page(1, 20)).rows.map((row) => row.type)).toEqual(['wiki', 'lfs_object']);
    expect(listCurrentNodeFailures(db, 'eu', { type: 'attachment', failure_type: 'verification' }, page(1, 20)).total).toBe(1);
    expect(listCurrentNodeFailures(db, 'eu', { type: 'job_artifact' }, page(1, 20))).toEqual({ rows: [], total: 0 });
    const second = listCurrentNodeFailures(db, 'eu', {}, page(2, 3));
    expect(second).toMatchObject({ total: 4, rows: [{ type: 'attachment', failure_type: 'verification' }] });
  });
});
