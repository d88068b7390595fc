import { Router } from 'express';
import path from 'node:path';
import { findProjectById } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { projectAvatarDir, topicAvatarDir } from '../../storage/layout.js';
import { findTopicById } from '../../db/tables/topics.js';
import { VISIBILITY } from '../../db/levels.js';
import type { SiteContext } from '../../site-context.js';
import { pathInt } from '../params.js';
import { sendStoredFile } from '../respond.js';

/**
 * Serves project avatars and project topic avatars at the path avatar_url names, for projects anyone may read (this route
 * sees no credentials). Geo does not replicate avatar files, so a secondary has the primary answer.
 */
export function projectAvatarRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  router.get('/uploads/-/system/project/avatar/:id/:file', async (req, res) => {
    const project = findProjectById(ctx.db, pathInt(req.params.id, 'id'));
    if (!project || project.visibility_level !== VISIBILITY.public || project.avatar_path !== req.params.file) throw notFound('Avatar');
    if (reads) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, path.join(projectAvatarDir(ctx.config.dataDir, project.id), project.avatar_path), { resource: 'Avatar', type: path.extname(project.avatar_path) });
  });
  // Topic avatars are public, as topics are.
  router.get('/uploads/-/system/projects/topic/avatar/:id/:file', async (req, res) => {
    const topic = findTopicById(ctx.db, pathInt(req.params.id, 'id'));
    if (!topic || topic.avatar_path !== req.params.file) throw notFound('Avatar');
    if (reads) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, path.join(topicAvatarDir(ctx.config.dataDir, topic.id), topic.avatar_path), { resource: 'Avatar', type: path.extname(topic.avatar_path) });
  });
  return router;
}
