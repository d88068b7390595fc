import { setProjectArchived, setProjectStar } from '../../services/projects/projects.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import type { Handler } from '../routes.js';
import { sendProject } from './project-response.js';

/** Star and archive (SPEC: States): each answers 201 with the project. */
const starring =
  (starred: boolean): Handler =>
  (ctx, req, res) =>
    sendProject(ctx, req, res, 201, setProjectStar(ctx.db, requireActor(req), projectOf(req), starred));

const archiving =
  (archived: boolean): Handler =>
  (ctx, req, res) =>
    sendProject(ctx, req, res, 201, setProjectArchived(ctx.db, projectOf(req), archived));

export const starProject = starring(true);
export const unstarProject = starring(false);
export const archiveProject = archiving(true);
export const unarchiveProject = archiving(false);
