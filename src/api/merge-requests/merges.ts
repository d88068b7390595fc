import type { Request, Response } from 'express';
import { acceptMergeRequest, cancelMergeWhenPipelineSucceeds } from '../../services/merge-requests/accept.js';
import { mergeRefOf, startRebase } from '../../services/merge-requests/rebase.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, str } from '../params.js';
import { sendJson } from '../respond.js';
import { readableMergeRequest } from './guards.js';
import { sendMergeRequest } from './response.js';

/** PUT .../merge parameters (SPEC; python-gitlab sends `sha` in the query, the rest as JSON); `auto_merge` is GitLab 17.11's name for merge_when_pipeline_succeeds. */
export const mergeRequestMergeParams = paramsGuard(
  'mergeRequestMergeParams',
  {
    merge_commit_message: str(),
    squash_commit_message: str(),
    squash: bool(),
    should_remove_source_branch: bool(),
    merge_when_pipeline_succeeds: bool(),
    auto_merge: bool(),
    sha: str(),
  },
  (params) => ({
    mergeCommitMessage: params.merge_commit_message || undefined,
    squashCommitMessage: params.squash_commit_message || undefined,
    squash: params.squash,
    shouldRemoveSourceBranch: params.should_remove_source_branch,
    mergeWhenPipelineSucceeds: params.merge_when_pipeline_succeeds ?? params.auto_merge,
    sha: params.sha || undefined,
  }),
);

/** PUT .../merge: the merged (or flagged) merge request. */
export async function acceptMerge(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const merged = await acceptMergeRequest(ctx, projectOf(req), requireActor(req), readableMergeRequest.of(req), mergeRequestMergeParams.of(req));
  sendMergeRequest(ctx, req, res, 200, merged);
}

/** PUT and POST .../cancel_merge_when_pipeline_succeeds (decision 2): the merge request, 201 for POST (decision 13). */
export function cancelMergeWhenPipeline(ctx: SiteContext, req: Request, res: Response): void {
  const row = cancelMergeWhenPipelineSucceeds(ctx, projectOf(req), requireActor(req), readableMergeRequest.of(req));
  sendMergeRequest(ctx, req, res, req.method === 'POST' ? 201 : 200, row);
}

/** PUT (python-gitlab) and POST .../rebase: 202 `{rebase_in_progress: true}`, the rebase runs in the background (GitLab 11.6+). */
export async function rebaseMerge(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await startRebase(ctx, requireActor(req), readableMergeRequest.of(req));
  sendJson(res, 202, { rebase_in_progress: true });
}

/** GET .../merge_ref: `{commit_id}` of refs/merge-requests/<iid>/merge. */
export function showMergeRef(_ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, mergeRefOf(readableMergeRequest.of(req)));
}
