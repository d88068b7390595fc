import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { PrimaryClient } from '../../src/geo/agent/primary-client.js';
import { recordBlobEvent } from '../../src/geo/registry/record-event.js';
import { SyncScheduler } from '../../src/geo/sync/scheduler.js';
import { FILE_BATCH_CONTENT_TYPE } from '../../src/geo/transfer-batch.js';
import { createSiteMetrics } from '../../src/observability/metrics.js';
import { BlobStores } from '../../src/storage/blob-stores.js';
import { batchBody } from '../helpers/geo-blobs.js';
import { waitFor } from '../helpers/multisite.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const CAPACITY = 10;
const FILES = 47;

describe('SyncScheduler with small files', () => {
  const objects = Array.from({ length: FILES }, (_, index) => {
    const data = randomBytes(1000 + index);
    return { id: index + 1, data, oid: sha256(data) };
  });
  /** Files per transfer request, and the most files in requests at once. */
  const batches: number[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let server: http.Server;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'geoforge-scheduler-'));
    // A primary that answers batches a few milliseconds late, as a real one does: syncs end at different times.
    server = http.createServer((req, res) => {
      const ids = new URL(req.url!, 'http://primary').searchParams.get('files')!.split(',').map((entry) => Number(entry.split(':')[1]));
      batches.push(ids.length);
      inFlight += ids.length;
      mostInFlight = Math.max(mostInFlight, inFlight);
      const body = batchBody(ids.map((id) => ({ type: 'lfs', id, data: objects[id - 1]!.data })));
      setTimeout(() => {
        inFlight -= ids.length;
        res.writeHead(200, { 'content-type': FILE_BATCH_CONTENT_TYPE, 'content-length': body.length }).end(body);
      }, 2 + (batches.length % 3) * 3);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts them in groups of at least half the capacity, each group one request, never more than the capacity at once', async () => {
    const db = new Database(':memory:');
    migrate(db);
    db.pragma('foreign_keys = OFF');
    for (const { id, data, oid } of objects) {
      db.prepare("INSERT INTO lfs_objects (id, oid, size, created_at) VALUES (?, ?, ?, '2026-01-01T00:00:00Z')").run(id, oid, data.length);
      const event = { type: 'lfs_object', action: 'created', id, project_id: null, path: `lfs-objects/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}`, checksum: oid, size: data.length } as const;
      recordBlobEvent(db, event, Date.now());
    }
    const client = new PrimaryClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'a-secret-for-scheduler-tests', () => 'secondary-1');
    const metrics = createSiteMetrics();
    const scheduler = new SyncScheduler({
      dataDir,
      blobs: new BlobStores(dataDir),
      log: pino({ level: 'silent' }),
      metrics: metrics.geo,
      client,
      db: () => db,
      ready: () => true,
      capacity: () => ({ repos: 1, files: CAPACITY }),
      retry: { baseMs: 1000, capMs: 60_000 },
      missingRetry: { baseMs: 1000, capMs: 60_000 },
      pollMs: 50,
    });
    scheduler.start();
    try {
      await waitFor(() => (db.prepare("SELECT count(*) FROM geo_registry WHERE state = 'synced'").pluck().get() as number) === FILES, { timeoutMs: 10_000, message: 'all synced' });
    } finally {
      await scheduler.stop();
      await client.close();
    }
    for (const { oid, data } of objects) expect(sha256(await readFile(path.join(dataDir, 'lfs-objects', oid.slice(0, 2), oid.slice(2, 4), oid)))).toBe(sha256(data));
    expect(batches.reduce((sum, files) => sum + files, 0)).toBe(FILES);
    expect(batches[0]).toBe(CAPACITY);
    // Only the tail may be smaller than half the capacity: fewer items than that were left.
    expect(batches.slice(0, -1).every((files) => files >= CAPACITY / 2)).toBe(true);
    expect(mostInFlight).toBeLessThanOrEqual(CAPACITY);
  });
});
