import { Router, type Request, type RequestHandler, type Response } from 'express';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { uploadView } from '../../entities/uploads.js';
import { findReadableUpload, uploadToProject } from '../../services/projects/uploads.js';
import { isInline } from '../../storage/media-types.js';
import type { SiteContext } from '../../site-context.js';
import { resolveActor } from '../middleware/authenticate.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { uploadedFile } from '../middleware/value-guards.js';
import { sendBlob, sendJson } from '../respond.js';

/** SPEC: POST /projects/:id/uploads takes a multipart `file` (empty stray parts are dropped by parseInput, W10). */
export const uploadFile = uploadedFile('file');

export async function addUpload(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const upload = await uploadToProject(ctx.db, ctx.blobs, ctx.config.dataDir, requireActor(req), project, uploadFile.of(req));
  const namespace = findNamespaceById(ctx.db, project.namespace_id)!;
  sendJson(res, 201, uploadView(upload, `${namespace.full_path}/${project.path}`));
}

/**
 * Only `<namespace path>/<project>/uploads/<32 hex>/<file>`: the project path is everything
 * before the tail, so this never shadows other project web routes (`<project>.git/...` among them).
 */
const UPLOAD_PATH = /^\/(.+)\/([^/]+)\/uploads\/([0-9a-f]{32})\/([^/]+)$/;

/**
 * Serves project uploads at the project's web path (`url` of the Upload result is relative to
 * the project's web_url). Outside /api/v4, so it reads the API's credentials itself; a project
 * the caller may not read is 404 like a missing file. A secondary without a synced copy has the
 * primary answer.
 */
export function projectUploadsWebRouter(ctx: SiteContext, input: RequestHandler, reads: ReadRouting | null): Router {
  const router = Router();
  router.get(UPLOAD_PATH, input, async (req, res) => {
    res.locals.route = '/:namespace/:project/uploads/:secret/:filename';
    const params = req.params as unknown as Record<string, string>;
    const actor = resolveActor(ctx, req);
    req.actor = actor;
    const { upload, key } = findReadableUpload(ctx.db, actor, `${params[0]}/${params[1]}`, params[2], params[3]);
    if (reads && !reads.isCurrent('attachment', upload.id)) return reads.fromPrimary(req, res);
    await sendBlob(req, res, ctx.blobs, key, {
      filename: upload.filename,
      headers: {
        'Content-Type': upload.mimetype,
        'Content-Disposition': `${isInline(upload.filename) ? 'inline' : 'attachment'}; filename="${upload.filename}"`,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'private',
      },
    });
  });
  return router;
}
