import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Router, type Request, type Response } from 'express';
import { inTransaction } from '../../db/connection.js';
import { ensureLfsObject, findLfsObject, isLfsObjectLinked, linkLfsObject } from '../../db/tables/lfs-objects.js';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { recordFileChange } from '../../geo/file-events.js';
import type { ReadRouting } from '../../geo/read-routing.js';
import type { GitService } from '../../git/smart-http.js';
import { nowIso } from '../../storage/clock.js';
import { CopyLimitError, copyWithDigest } from '../../storage/durable-copy.js';
import type { SiteContext } from '../../site-context.js';
import { authorizeGit, type Access } from './git-http.js';
import { openStoredFile, sendFileBody } from '../respond.js';

/** The Git LFS media type: batch requests and answers, and error bodies. */
const LFS_TYPE = 'application/vnd.git-lfs+json';

const BATCH = /^\/(.+?)(?:\.git)?\/info\/lfs\/objects\/batch$/;
const OBJECT = /^\/(.+?)\.git\/gitlab-lfs\/objects\/([0-9a-f]{64})$/;
const UPLOAD = /^\/(.+?)\.git\/gitlab-lfs\/objects\/([0-9a-f]{64})\/(\d+)$/;

const OID = /^[0-9a-f]{64}$/;
/** The largest batch request body read (git-lfs sends at most 100 objects a batch). */
const MAX_BATCH_BYTES = 1024 * 1024;

/** Where an LFS object lives: DATA_DIR/lfs-objects/<oid[0:2]>/<oid[2:4]>/<oid> (DESIGN). */
export function lfsObjectPath(dataDir: string, oid: string): string {
  return path.join(dataDir, 'lfs-objects', oid.slice(0, 2), oid.slice(2, 4), oid);
}

/** An error as git-lfs shows it: `{message}` in the LFS media type (with the Basic challenge on a 401). */
function lfsError(res: Response, status: number, message: string): void {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="GitLab"');
  res.status(status).type(LFS_TYPE).send(JSON.stringify({ message, documentation_url: 'https://docs.gitlab.com/ee/workflow/lfs/lfs/index.html' }));
}

/** LFS is on for a project when the project and every group above it have it on. */
function lfsEnabled(ctx: SiteContext, project: ProjectRow): boolean {
  if (!project.lfs_enabled) return false;
  let namespaceId: number | null = project.namespace_id;
  for (let depth = 0; namespaceId !== null && depth < 32; depth += 1) {
    const namespace = findNamespaceById(ctx.db, namespaceId);
    if (!namespace) break;
    if (namespace.kind === 'group' && !namespace.lfs_enabled) return false;
    namespaceId = namespace.parent_id;
  }
  return true;
}

/** The project and the projects it was forked from: a fork shares its sources' LFS objects. */
function projectAndSources(ctx: SiteContext, project: ProjectRow): number[] {
  const ids = [project.id];
  let source = project.forked_from_project_id;
  while (source !== null && !ids.includes(source) && ids.length < 32) {
    ids.push(source);
    source = findProjectById(ctx.db, source)?.forked_from_project_id ?? null;
  }
  return ids;
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
  if (!lfsEnabled(ctx, result.project)) {
    lfsError(res, 404, 'Git LFS is not enabled on this GitLab server, contact your admin.');
    return null;
  }
  return result;
}

/** The object's row when the project (or a project it was forked from) has it linked; the file on disk is not looked at. */
function linkedObject(ctx: SiteContext, project: ProjectRow, oid: string): { id: number; size: number } | null {
  const object = findLfsObject(ctx.db, oid);
  return object && isLfsObjectLinked(ctx.db, object.id, projectAndSources(ctx, project)) ? { id: object.id, size: object.size } : null;
}

/** Whether the project (or a project it was forked from) has the object, stored on disk. */
async function projectHasObject(ctx: SiteContext, project: ProjectRow, oid: string): Promise<{ id: number; size: number } | null> {
  const object = linkedObject(ctx, project, oid);
  if (!object || !(await stat(lfsObjectPath(ctx.config.dataDir, oid)).catch(() => null))?.isFile()) return null;
  return object;
}

/** On a secondary: whether this site holds a synced copy of the object for the project, else the primary answers. */
async function servedHere(ctx: SiteContext, reads: ReadRouting, project: ProjectRow, oid: string): Promise<boolean> {
  const stored = await projectHasObject(ctx, project, oid);
  return stored !== null && reads.isCurrent('lfs_object', stored.id);
}

/** A download batch stays on a secondary only when every object in it does; else the primary answers it whole. */
async function everyObjectServedHere(ctx: SiteContext, reads: ReadRouting, project: ProjectRow, objects: unknown[]): Promise<boolean> {
  for (const item of objects) {
    const oid = (item as { oid?: unknown } | null)?.oid;
    if (typeof oid === 'string' && OID.test(oid) && !(await servedHere(ctx, reads, project, oid))) return false;
  }
  return true;
}

async function readBody(req: Request): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > MAX_BATCH_BYTES) throw new Error('too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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
    if (reads && operation === 'download' && !(await everyObjectServedHere(ctx, reads, project, body.objects as unknown[]))) return reads.fromPrimary(req, res, raw);
    const namespace = findNamespaceById(ctx.db, project.namespace_id);
    const base = `${ctx.externalUrl}/${namespace?.full_path ?? ''}/${project.path}.git/gitlab-lfs/objects`;
    const header = req.headers.authorization ? { Authorization: req.headers.authorization } : {};
    const objects: object[] = [];
    for (const item of body.objects as { oid?: unknown; size?: unknown }[]) {
      const oid = typeof item?.oid === 'string' ? item.oid : '';
      const size = typeof item?.size === 'number' && Number.isSafeInteger(item.size) && item.size >= 0 ? item.size : -1;
      if (!OID.test(oid) || size < 0) {
        objects.push({ oid, size: item?.size ?? null, error: { code: 422, message: 'Invalid oid or size.' } });
        continue;
      }
      const stored = await projectHasObject(ctx, project, oid);
      if (operation === 'download') {
        if (!stored) objects.push({ oid, size, error: { code: 404, message: 'Object does not exist on the server or you don\'t have permissions to access it' } });
        else objects.push({ oid, size: stored.size, authenticated: true, actions: { download: { href: `${base}/${oid}`, header } } });
      } else if (stored) {
        // Already here (perhaps through a fork's source): linked to this project, nothing to send.
        inTransaction(ctx.db, () => {
          const now = nowIso();
          linkLfsObject(ctx.db, ensureLfsObject(ctx.db, oid, stored.size, now).id, project.id, now);
        });
        objects.push({ oid, size, authenticated: true });
      } else {
        objects.push({ oid, size, authenticated: true, actions: { upload: { href: `${base}/${oid}/${size}`, header } } });
      }
    }
    res.status(200).type(LFS_TYPE).send(JSON.stringify({ transfer: 'basic', objects }));
  });

  router.get(OBJECT, async (req, res) => {
    res.locals.route = '/:namespace/:project.git/gitlab-lfs/objects/:oid';
    const params = req.params as unknown as Record<string, string>;
    const access = await lfsGate(ctx, req, res, params[0]!, 'git-upload-pack');
    if (!access) return;
    const oid = params[1]!;
    if (reads && !(await servedHere(ctx, reads, access.project, oid))) return reads.fromPrimary(req, res);
    const stored = linkedObject(ctx, access.project, oid);
    // Opened before answering, which is also the check that it is on disk: a file that is gone is a 404, never a cut-off 200.
    const opened = stored ? await openStoredFile(lfsObjectPath(ctx.config.dataDir, oid)) : null;
    if (!stored || !opened) {
      lfsError(res, 404, 'Object does not exist on the server or you don\'t have permissions to access it');
      return;
    }
    res.status(200).set({ 'Content-Type': 'application/octet-stream', 'Content-Length': String(stored.size) });
    try {
      await sendFileBody(res, opened.handle, stored.size);
    } catch (error) {
      ctx.log.warn({ err: error, project: access.project.id, oid }, 'lfs download failed');
      res.destroy();
    } finally {
      await opened.handle.close();
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
    const target = lfsObjectPath(ctx.config.dataDir, oid);
    const temporary = path.join(ctx.config.dataDir, 'lfs-objects', 'tmp', `${oid}.${randomUUID()}`);
    await mkdir(path.dirname(temporary), { recursive: true });
    await mkdir(path.dirname(target), { recursive: true });
    try {
      // Never more than the declared size on disk: a longer body fails the copy as soon as it passes it.
      const received = await copyWithDigest(req, temporary, { maxBytes: size }).catch((error: unknown) => {
        if (!(error instanceof CopyLimitError)) throw error;
        // The rest of the body stays unread: the connection ends with the answer.
        res.setHeader('Connection', 'close');
        return null;
      });
      if (received === null || received.sha256 !== oid || received.size !== size) {
        await rm(temporary, { force: true });
        lfsError(res, 422, 'The uploaded content does not match the object id and size.');
        return;
      }
      // Content-addressed: an object already stored is the same bytes; keep it.
      if ((await stat(target).catch(() => null))?.isFile()) await rm(temporary, { force: true });
      else await rename(temporary, target);
      inTransaction(ctx.db, () => {
        const now = nowIso();
        const known = findLfsObject(ctx.db, oid);
        const object = known ?? ensureLfsObject(ctx.db, oid, size, now);
        if (!known) recordFileChange(ctx.db, ctx.config.dataDir, { type: 'lfs_object', action: 'created', id: object.id, projectId: null, file: target, sha256: oid, size });
        linkLfsObject(ctx.db, object.id, access.project.id, now);
      });
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      ctx.log.warn({ err: error, project: access.project.id, oid }, 'lfs upload failed');
      if (!res.headersSent) lfsError(res, 500, 'The object could not be stored.');
      return;
    }
    res.status(200).type(LFS_TYPE).send('{}');
  });

  return router;
}
