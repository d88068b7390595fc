import { Router, type RequestHandler } from 'express';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { uploadView } from '../../entities/uploads.js';
import { badRequest } from '../../errors.js';
import { findVisibleProject } from '../../services/find-visible.js';
import { findReadableUpload, isInline, uploadToProject } from '../../services/projects/uploads.js';
import type { SiteContext } from '../../site-context.js';
import { resolveActor } from '../middleware/authenticate.js';
import { requireActor } from '../middleware/guards.js';
import { idOrPath } from '../params.js';
import { sendJson, sendStoredFile } from '../respond.js';

/** SPEC: POST /projects/:id/uploads, a multipart `file` (empty stray parts are dropped by parseInput, W10). */
export function uploadsRouter(ctx: SiteContext): Router {
  const router = Router();
  router.post('/projects/:id/uploads', async (req, res) => {
    const actor = requireActor(req);
    const file = req.files.find((part) => part.field === 'file');
    if (!file) throw badRequest(req.input.file === undefined ? 'file is missing' : 'file is invalid');
    const project = findVisibleProject(ctx.db, actor, idOrPath(String(req.params.id)));
    const upload = await uploadToProject(ctx.db, ctx.config.dataDir, actor, project, file);
    const namespace = findNamespaceById(ctx.db, project.namespace_id)!;
    sendJson(res, 201, uploadView(upload, `${namespace.full_path}/${project.path}`));
  });
  return router;
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
    const { upload, file } = findReadableUpload(ctx.db, ctx.config.dataDir, actor, `${params[0]}/${params[1]}`, params[2], params[3]);
    if (reads && !reads.isCurrent('attachment', upload.id)) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, file, {
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
