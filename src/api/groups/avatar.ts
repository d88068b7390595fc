import { Router } from 'express';
import path from 'node:path';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import { notFound } from '../../errors.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { groupAvatarDir } from '../../storage/layout.js';
import { VISIBILITY } from '../../db/levels.js';
import type { SiteContext } from '../../site-context.js';
import { pathInt } from '../params.js';
import { sendStoredFile } from '../respond.js';

/**
 * Serves group avatars at the path avatar_url names, for public groups (this route sees no
 * credentials, as the project avatars' does). Geo does not replicate avatar files, so a secondary
 * has the primary answer.
 */
export function groupAvatarRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  router.get('/uploads/-/system/group/avatar/:id/:file', async (req, res) => {
    const group = findNamespaceById(ctx.db, pathInt(req.params.id, 'id'));
    if (!group || group.kind !== 'group' || group.visibility_level !== VISIBILITY.public || group.avatar_path !== req.params.file) throw notFound('Avatar');
    if (reads) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, path.join(groupAvatarDir(ctx.config.dataDir, group.id), group.avatar_path), { resource: 'Avatar', type: path.extname(group.avatar_path) });
  });
  return router;
}
