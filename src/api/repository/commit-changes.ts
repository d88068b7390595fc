import type { Request, Response } from 'express';
import { commitEntity } from '../../entities/repository.js';
import { applyCommitChange, type CommitChange } from '../../services/repository/commit-changes.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { required, str } from '../params.js';
import { sendJson } from '../respond.js';

export const commitChangeParams = paramsGuard('commitChangeParams', { branch: required(str()) });

/** POST .../commits/:sha/cherry_pick and .../revert (issue 17, item 1): `branch` required; 201 with the new commit (GitLab's Commit entity). */
const changeCommit =
  (kind: CommitChange) =>
  async (ctx: SiteContext, req: Request, res: Response): Promise<void> => {
    const { branch } = commitChangeParams.of(req);
    const commit = await applyCommitChange(ctx, projectOf(req), requireActor(req), kind, String(req.params.sha), branch);
    sendJson(res, 201, commitEntity(commit));
  };

export const cherryPickCommit = changeCommit('cherry_pick');
export const revertCommit = changeCommit('revert');
