import { createHash } from 'node:crypto';
import type { Db } from '../../src/db/connection.js';
import type { BlobType } from '../../src/geo/blobs.js';
import { dueItems, markStarted, type RegistryItem } from '../../src/geo/registry/queue.js';
import { encodeFileBatchHeader, type FileBatchHeader } from '../../src/geo/transfer-batch.js';
import { ROOT_TOKEN, type SiteProcess } from './multisite.js';

/** Short timings so each step settles in well under a second. */
export const FAST_SYNC_ENV = {
  GEOFORGE_GEO_SYNC_POLL_MS: '100',
  GEOFORGE_GEO_RETRY_BASE_MS: '200',
  GEOFORGE_GEO_RETRY_CAP_SECONDS: '2',
  GEOFORGE_GEO_MISSING_RETRY_CAP_SECONDS: '2',
  GEOFORGE_GEO_BACKFILL_SECONDS: '2',
};

/** A multipart POST as root (SiteProcess.api speaks JSON only). */
export async function postFile(site: SiteProcess, apiPath: string, filename: string, content: Buffer): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)]), filename);
  const response = await fetch(`${site.url}/api/v4${apiPath}`, { method: 'POST', body: form, headers: { 'private-token': ROOT_TOKEN } });
  if (response.status !== 201) throw new Error(`POST ${apiPath}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The live status of `site` (a secondary), from its own /geo_nodes/:id/status. */
export async function ownStatus(site: SiteProcess): Promise<Record<string, any>> {
  const nodes = await site.api('/geo_nodes');
  const node = nodes.body.find((candidate: { name: string }) => candidate.name === site.name);
  if (!node) throw new Error(`${site.name} is not registered yet`);
  return (await site.api(`/geo_nodes/${node.id}/status`)).body;
}

/** A row of geo_registry: the columns tests read by name typed, the others as they come. */
export interface RegistryRow {
  readonly id: number;
  readonly item_type: BlobType;
  readonly item_id: number;
  readonly path: string;
  readonly [column: string]: any;
}

/** The secondary's registry rows, read from its file. */
export function registryOf(site: SiteProcess): RegistryRow[] {
  const db = site.openReadOnly();
  try {
    return db.prepare('SELECT * FROM geo_registry ORDER BY id').all() as RegistryRow[];
  } finally {
    db.close();
  }
}

/** A file batch body as a primary sends it: each file's header line and bytes, or a 404 part for a null file. */
export function batchBody(files: ReadonlyArray<{ type: string; id: number; data: Buffer | null }>): Buffer {
  return Buffer.concat(
    files.flatMap(({ type, id, data }) => {
      const header: FileBatchHeader = data
        ? { type, id, size: data.length, sha256: createHash('sha256').update(data).digest('hex') }
        : { type, id, status: 404, message: '404 LFS Object Not Found', geo_code: 'FILE_NOT_FOUND' };
      return [encodeFileBatchHeader(header), data ?? Buffer.alloc(0)];
    }),
  );
}

/** What the sync scheduler does with due items it runs: select them, then record their start. */
export function claimDueItems(db: Db, types: readonly BlobType[], limit: number, now: number): RegistryItem[] {
  const items = dueItems(db, types, limit, now);
  for (const item of items) markStarted(db, item, now);
  return items;
}
