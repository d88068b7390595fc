import { Router, type Request, type Response } from 'express';
import type { ReadRouting } from '../geo/read-routing.js';
import type { GitService } from '../../git/smart-http.js';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { answerLfsBatch, isLfsOid, lfsEnabled, linkedLfsObject, storeLfsObject, storedLfsObject, type LfsBatchAnswer, type LfsUploadResult } from '../../services/repository/lfs.js';
import type { SiteContext } from '../../site-context.js';
import { StoreUnavailableError } from '../../storage/blob-store.js';
import { lfsObjectKey } from '../../storage/layout.js';
import { MAX_LFS_BATCH_BYTES } from '../../storage/limits.js';
import { authorizeGit, type Access } from './git-http.js';
import { sendOpenedBlob, storeUnavailable } from '../respond.js';

/** The Git LFS media type: batch requests and answers, and error bodies. */
const LFS_TYPE = 'application/vnd.git-lfs+json';

const BATCH = /^\/(.+?)(?:\.git)?\/info\/lfs\/objects\/batch$/;
const OBJECT = /^\/(.+?)\.git\/gitlab-lfs\/objects\/([0-9a-f]{64})$/;
const UPLOAD = /^\/(.+?)\.git\/gitlab-lfs\/objects\/([0-9a-f]{64})\/(\d+)$/;

/** An error as git-lfs shows it: `{message}` in the LFS media type (with the Basic challenge on a 401). */
function lfsError(res: Response, status: number, message: string): void {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="GitLab"');
  if (status === 503) res.setHeader('Retry-After', String(storeUnavailable.retryAfterSeconds));
  res.status(status).type(LFS_TYPE).send(JSON.stringify({ message, documentation_url: 'https://docs.gitlab.com/ee/workflow/lfs/lfs/index.html' }));
}

/**
 * The same Basic token auth and read/push permissions as git smart HTTP, for the main repository
 * only (a wiki has no LFS), then lfs_enabled. Responds itself and returns null when refused.
 */
async function lfsGate(ctx: SiteContext, req: Request, res: Response, fullPath: string, service: GitService): Promise<Access | null> {
  const result = await authorizeGit(ctx, req, fullPath, service, { allowWiki: false });
  if ('status' in result) {
    lfsError(res, result.status, result.message);
    return null;
  }
  if (!lfsEnabled(ctx.db, result.project)) {
    lfsError(res, 404, 'Git LFS is not enabled on this GitLab server, contact your admin.');
    return null;
  }
  return result;
}

/** On a secondary: whether this site holds a synced copy of the object for the project, else the primary answers. */
async function servedHere(ctx: SiteContext, reads: ReadRouting, project: ProjectRow, oid: string): Promise<boolean> {
  const stored = await storedLfsObject(ctx.db, ctx.blobs, project, oid);
  return stored !== null && reads.isCurrent('lfs_object', stored.id);
}

/** A download batch stays on a secondary only when every object in it does; else the primary answers it whole. */
async function everyObjectServedHere(ctx: SiteContext, reads: ReadRouting, project: ProjectRow, objects: unknown[]): Promise<boolean> {
  for (const item of objects) {
    const oid = (item as { oid?: unknown } | null)?.oid;
    if (isLfsOid(oid) && !(await servedHere(ctx, reads, project, oid))) return false;
  }
  return true;
}

async function readBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_LFS_BATCH_BYTES) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * One object of the batch response: the transfer's action carries the href to use and the caller's
 * own Authorization; a download of an object in a store that clients fetch from directly
 * (proxyDownload false) points at a presigned URL of the store instead, as GitLab's does.
 */
async function batchObject(ctx: SiteContext, answer: LfsBatchAnswer, base: string, header: Record<string, string>): Promise<object> {
  if ('error' in answer) return answer;
  const { oid, size, transfer } = answer;
  if (transfer === 'download') {
    const presigned = await ctx.blobs.presignedGet(lfsObjectKey(oid));
    const { presignSeconds } = ctx.blobs.of('lfs');
    if (presigned) return { oid, size, authenticated: true, actions: { download: { href: presigned, header: {}, expires_in: presignSeconds } } };
    return { oid, size, authenticated: true, actions: { download: { href: `${base}/${oid}`, header } } };
  }
  if (transfer === 'upload') return { oid, size, authenticated: true, actions: { upload: { href: `${base}/${oid}/${size}`, header } } };
  return { oid, size, authenticated: true };
}

/**
 * Git LFS (GITLAB-NOTES 5): the batch API and the basic transfer's object download and upload,
 * beside git smart HTTP. Outside /api/v4 and before any body parser: an upload body is the object.
 */
export function gitLfsRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();

  router.post(BATCH, async (req, res) => {
    res.locals.route = '/:namespace/:project.git/info/lfs/objects/batch';
    const params = req.params as unknown as Record<string, string>;
    let raw: Buffer;
    let body: { operation?: unknown; objects?: unknown };
    try {
      raw = await readBody(req);
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      lfsError(res, 422, 'Unprocessable batch request.');
      return;
    }
    const operation = body?.operation;
    if ((operation !== 'download' && operation !== 'upload') || !Array.isArray(body.objects)) {
      lfsError(res, 422, 'Unprocessable batch request: operation must be download or upload, with objects.');
      return;
    }
    // A secondary takes no uploads: the primary answers, and its actions point the client at itself.
    if (reads && operation === 'upload') return reads.fromPrimary(req, res, raw);
    const access = await lfsGate(ctx, req, res, params[0]!, operation === 'upload' ? 'git-receive-pack' : 'git-upload-pack');
    if (!access) return;
    const { project } = access;
    try {
      if (reads && operation === 'download' && !(await everyObjectServedHere(ctx, reads, project, body.objects as unknown[]))) return reads.fromPrimary(req, res, raw);
      const answers = await answerLfsBatch(ctx.db, ctx.blobs, project, operation, body.objects as { oid?: unknown; size?: unknown }[]);
      const namespace = findNamespaceById(ctx.db, project.namespace_id);
      const base = `${ctx.externalUrl}/${namespace?.full_path ?? ''}/${project.path}.git/gitlab-lfs/objects`;
      const header: Record<string, string> = req.headers.authorization ? { Authorization: req.headers.authorization } : {};
      const objects = await Promise.all(answers.map((answer) => batchObject(ctx, answer, base, header)));
      res.status(200).type(LFS_TYPE).send(JSON.stringify({ transfer: 'basic', objects }));
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      ctx.log.warn({ err: error, project: project.id }, 'lfs batch: object store unavailable');
      lfsError(res, 503, storeUnavailable.message(error));
    }
  });

  router.get(OBJECT, async (req, res) => {
    res.locals.route = '/:namespace/:project.git/gitlab-lfs/objects/:oid';
    const params = req.params as unknown as Record<string, string>;
    const access = await lfsGate(ctx, req, res, params[0]!, 'git-upload-pack');
    if (!access) return;
    const oid = params[1]!;
    try {
      if (reads && !(await servedHere(ctx, reads, access.project, oid))) return reads.fromPrimary(req, res);
      const stored = linkedLfsObject(ctx.db, access.project, oid);
      // Access was decided above; a store that clients fetch from directly gets them a short-lived URL.
      const presigned = stored ? await ctx.blobs.presignedGet(lfsObjectKey(oid)) : null;
      if (presigned) {
        res.redirect(302, presigned);
        return;
      }
      // Opened before answering, which is also the check that it is stored: a blob that is gone is a 404, never a cut-off 200.
      const opened = stored ? await ctx.blobs.open(lfsObjectKey(oid)) : null;
      if (!stored || !opened) {
        lfsError(res, 404, 'Object does not exist on the server or you don\'t have permissions to access it');
        return;
      }
      res.status(200).set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(opened.size) });
      if (await sendOpenedBlob(res, opened)) ctx.metrics.lfsBytes.inc({ direction: 'download' }, opened.size);
      else ctx.log.warn({ project: access.project.id, oid }, 'lfs download cut off');
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || res.headersSent) throw error;
      ctx.log.warn({ err: error, project: access.project.id, oid }, 'lfs download: object store unavailable');
      lfsError(res, 503, storeUnavailable.message(error));
    }
  });

  router.put(UPLOAD, async (req, res) => {
    res.locals.route = '/:namespace/:project.git/gitlab-lfs/objects/:oid/:size';
    if (reads) return reads.fromPrimary(req, res);
    const params = req.params as unknown as Record<string, string>;
    const access = await lfsGate(ctx, req, res, params[0]!, 'git-receive-pack');
    if (!access) return;
    const oid = params[1]!;
    const size = Number(params[2]);
    if (!Number.isSafeInteger(size)) {
      lfsError(res, 422, 'Invalid size.');
      return;
    }
    const length = req.headers['content-length'];
    if (length !== undefined && Number(length) !== size) {
      lfsError(res, 422, 'The uploaded content does not match the object id and size.');
      return;
    }
    let result: LfsUploadResult;
    try {
      result = await storeLfsObject(ctx.db, ctx.blobs, ctx.config.dataDir, access.project, oid, size, req);
    } catch (error) {
      ctx.log.warn({ err: error, project: access.project.id, oid }, 'lfs upload failed');
      // The rest of the body stays unread: the connection ends with the answer.
      res.setHeader('Connection', 'close');
      if (res.headersSent) res.destroy();
      else if (error instanceof StoreUnavailableError) lfsError(res, 503, storeUnavailable.message(error));
      else lfsError(res, 500, 'The object could not be stored.');
      return;
    }
    if (result === 'stored') {
      ctx.metrics.lfsBytes.inc({ direction: 'upload' }, size);
      res.status(200).type(LFS_TYPE).send('{}');
      return;
    }
    // A body longer than declared stays unread past that point: the connection ends with the answer.
    if (result === 'too_long') res.setHeader('Connection', 'close');
    lfsError(res, 422, 'The uploaded content does not match the object id and size.');
  });

  return router;
}
