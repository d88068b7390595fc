import type { Request, Response } from 'express';
import { applicationSettings } from '../../services/administration/application-settings.js';
import { PROJECT_FLAGS } from '../../services/projects/create.js';
import { updateProject } from '../../services/projects/projects.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { avatarChange, paramsGuard } from '../middleware/value-guards.js';
import { requireAtLeastOne } from '../params.js';
import { PROJECT_PARAMS, projectInputOf } from './project-input.js';
import { sendProject } from './project-response.js';

/** GitLab's at_least_one_of list for an update. */
const UPDATE_ATTRIBUTES = [
  'name',
  'path',
  'description',
  'default_branch',
  ...PROJECT_FLAGS.filter((flag) => flag !== 'printing_merge_request_link_enabled'),
  'visibility',
  'tag_list',
  'topics',
  'avatar',
  'ci_config_path',
  'repository_storage',
  'approvals_before_merge',
];

/** The update's attributes and avatar (400s), read before admin_project is asked. */
export const projectUpdateParams = paramsGuard('projectUpdateParams', PROJECT_PARAMS, (params, req) => {
  // SPEC: an update takes the create parameters except namespace_id and printing_merge_request_link_enabled.
  const { printing_merge_request_link_enabled: _ignored, ...input } = projectInputOf(params);
  const avatar = avatarChange.of(req);
  requireAtLeastOne({ ...input, avatar }, UPDATE_ATTRIBUTES);
  return { input, avatar };
});

export async function editProject(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { input, avatar } = projectUpdateParams.of(req);
  sendProject(ctx, req, res, 200, await updateProject(ctx.db, ctx.config.dataDir, requireActor(req), projectOf(req), input, applicationSettings(ctx.db, ctx.config), avatar));
}
