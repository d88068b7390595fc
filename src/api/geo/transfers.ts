import { Router } from 'express';
import type { Db } from '../../db/connection.js';
import { findJobArtifactById } from '../../db/tables/ci.js';
import { findLfsObjectById } from '../../db/tables/lfs-objects.js';
import { findUploadById } from '../../db/tables/uploads.js';
import { badRequest } from '../../errors.js';
import { FILE_BATCH_CONTENT_TYPE, FILE_BATCH_MAX_FILES, encodeFileBatchHeader, type FileBatchHeader } from '../../geo/transfer-batch.js';
import type { SiteContext } from '../../site-context.js';
import { closeOpenedBlob } from '../../storage/blob-store.js';
import { artifactKey, lfsObjectKey, uploadKey } from '../../storage/layout.js';
import { requireGeoCaller } from './caller.js';
import { list, pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendOpenedBlob, writeBody, writeOpenedBlob } from '../respond.js';

/** A file a row names: its blob key on this site and the sha256 recorded with it. */
interface StoredFile {
  readonly key: string;
  readonly sha256: string;
}

interface TransferKind {
  /** The resource named in a 404: `404 <label> Not Found`. */
  readonly label: string;
  find(db: Db, id: number): StoredFile | null;
}

const LFS_OBJECT: TransferKind = {
  label: 'LFS Object',
  find: (db, id) => {
    const row = findLfsObjectById(db, id);
    return row ? { key: lfsObjectKey(row.oid), sha256: row.oid } : null;
  },
};

/** The URL words the transfers answer to (issue #6: lfs, attachment, job_artifact; `lfs_object` as the registry names it). */
const KINDS: Readonly<Record<string, TransferKind>> = {
  lfs: LFS_OBJECT,
  lfs_object: LFS_OBJECT,
  attachment: {
    label: 'Attachment',
    find: (db, id) => {
      const row = findUploadById(db, id);
      return row ? { key: uploadKey(row), sha256: row.sha256 } : null;
    },
  },
  job_artifact: {
    label: 'Job Artifact',
    find: (db, id) => {
      const row = findJobArtifactById(db, id);
      return row ? { key: artifactKey(row), sha256: row.sha256 } : null;
    },
  },
};

/** GitLab Geo's answer for a file the primary cannot serve; the secondary records it as missing on the primary. */
const notFoundBody = (label: string) => ({ message: `404 ${label} Not Found`, geo_code: 'FILE_NOT_FOUND' });

const BATCH_ENTRY = new RegExp(`^(${Object.keys(KINDS).join('|')}):(\\d{1,15})$`);

/** `files=<type>:<id>,...` of a batch: 1 to FILE_BATCH_MAX_FILES entries, each a transfer type and an id. */
function batchFiles(query: Record<string, unknown>): Array<{ word: string; kind: TransferKind; id: number }> {
  const { files } = readParams(query, { files: required(list(str())) });
  if (files.length === 0) throw badRequest('files is empty');
  if (files.length > FILE_BATCH_MAX_FILES) throw badRequest(`files has more than ${FILE_BATCH_MAX_FILES} entries`);
  return files.map((entry) => {
    const match = BATCH_ENTRY.exec(entry);
    if (!match) throw badRequest(`files is invalid: ${entry.slice(0, 100)} is not <${Object.keys(KINDS).join('|')}>:<id>`);
    return { word: match[1]!, kind: KINDS[match[1]!]!, id: Number(match[2]) };
  });
}

/**
 * GET /api/v4/geo/transfers/:type/:id (site-to-site only): the file of an LFS object, upload or
 * job artifact, streamed from an open handle (never buffered) with its size and the sha256 its
 * row recorded in `X-Geo-Sha256`; the secondary checks the bytes against it before keeping them.
 *
 * GET /api/v4/geo/transfers?files=<type>:<id>,... : several files in one response, each with the
 * same size and sha256, or the 404 its single transfer would get (src/geo/transfer-batch.ts).
 */
export function geoTransfersRouter(ctx: SiteContext): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    requireGeoCaller(ctx, req);
    const files = batchFiles(req.query as Record<string, unknown>);
    const stored = files.map(({ kind, id }) => kind.find(ctx.db, id));
    // All opened before answering, together (the length is known, and a file gone is a 404 part).
    const settled = await Promise.allSettled(stored.map((file) => (file ? ctx.blobs.open(file.key) : null)));
    const opened = settled.map((result) => (result.status === 'fulfilled' ? result.value : null));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) {
      // A store that fails: the whole batch is a 503 (the error handler), its opened blobs closed.
      await Promise.all(opened.map((blob) => blob && closeOpenedBlob(blob)));
      throw failed.reason;
    }
    try {
      const parts = files.map(({ word, kind, id }, index): FileBatchHeader => {
        const file = opened[index];
        return file ? { type: word, id, size: file.size, sha256: stored[index]!.sha256 } : { type: word, id, status: 404, ...notFoundBody(kind.label) };
      });
      const headers = parts.map(encodeFileBatchHeader);
      const length = headers.reduce((sum, header, index) => sum + header.length + (opened[index]?.size ?? 0), 0);
      res.status(200).set({ 'Content-Type': FILE_BATCH_CONTENT_TYPE, 'Content-Length': String(length) });
      for (const [index, header] of headers.entries()) {
        const file = opened[index];
        await (file ? writeOpenedBlob(res, file, header) : writeBody(res, header));
      }
      res.end();
    } catch (error) {
      ctx.log.warn({ err: error, files: req.query.files }, 'geo transfer batch failed');
      res.destroy();
    } finally {
      await Promise.all(opened.map((blob) => blob && closeOpenedBlob(blob)));
    }
  });
  router.get('/:type/:id', async (req, res) => {
    requireGeoCaller(ctx, req);
    const kind = Object.hasOwn(KINDS, req.params.type) ? KINDS[req.params.type]! : null;
    if (!kind) throw badRequest(`type does not have a valid value: one of ${Object.keys(KINDS).join(', ')}`);
    const id = pathInt(req.params.id, 'id');
    const stored = kind.find(ctx.db, id);
    // The blob is opened before answering: one gone or unreadable is a 404, never a cut-off 200.
    const opened = stored ? await ctx.blobs.open(stored.key) : null;
    if (!stored || !opened) return sendJson(res, 404, notFoundBody(kind.label));
    res.status(200).set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(opened.size), 'X-Geo-Sha256': stored.sha256 });
    if (!(await sendOpenedBlob(res, opened))) ctx.log.warn({ type: req.params.type, id }, 'geo transfer cut off');
  });
  return router;
}
