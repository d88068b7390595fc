import type { Request, Response } from 'express';
import { deleteProject } from '../../services/projects/projects.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { sendJson } from '../respond.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export async function removeProject(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  assertUnmodifiedSince(unmodifiedSince.of(req), projectOf(req).updated_at);
  await deleteProject(ctx.db, ctx.config.dataDir, ctx.blobs, requireActor(req), projectOf(req));
  sendJson(res, 202, { message: '202 Accepted' });
}
