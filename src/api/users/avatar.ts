import { Router } from 'express';
import path from 'node:path';
import { notFound } from '../../errors.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { userAvatarDir } from '../../storage/layout.js';
import { getUser } from '../../services/users/users.js';
import type { SiteContext } from '../../site-context.js';
import { pathInt } from '../params.js';
import { sendStoredFile } from '../respond.js';

/**
 * Serves user avatars at the path avatar_url names; avatars are public, as in GitLab. Geo does not
 * replicate avatar files, so a secondary has the primary answer.
 */
export function avatarRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  router.get('/uploads/-/system/user/avatar/:id/:file', async (req, res) => {
    const user = getUser(ctx.db, pathInt(req.params.id, 'id'));
    if (!user.avatar_path || user.avatar_path !== req.params.file) throw notFound('Avatar');
    if (reads) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, path.join(userAvatarDir(ctx.config.dataDir, user.id), user.avatar_path), { resource: 'Avatar', type: path.extname(user.avatar_path) });
  });
  return router;
}
