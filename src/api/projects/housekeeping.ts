import type { Request, Response } from 'express';
import { startHousekeeping } from '../../services/repository/housekeeping.js';
import { projectLanguages } from '../../services/repository/languages.js';
import type { SiteContext } from '../../site-context.js';
import { hashedDiskPath } from '../../storage/layout.js';
import { isoTime } from '../../entities/column-values.js';
import { projectOf } from '../middleware/guards.js';
import { sendJson } from '../respond.js';

/** GET /projects/:id/languages: `{"TypeScript": 71.5, ...}` from the default branch. */
export async function showLanguages(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, await projectLanguages(ctx, projectOf(req)));
}

/** POST /projects/:id/housekeeping: 201 once `git gc` is started; 409 while one runs. */
export async function runHousekeeping(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await startHousekeeping(ctx, projectOf(req));
  sendJson(res, 201, {});
}

/** GET /projects/:id/storage (admin, GitLab 14's ProjectRepositoryStorage): where the repository is on disk. */
export function showStorage(_ctx: SiteContext, req: Request, res: Response): void {
  const project = projectOf(req);
  sendJson(res, 200, { project_id: project.id, disk_path: hashedDiskPath(project.id), created_at: isoTime(project.created_at), repository_storage: project.repository_storage });
}
