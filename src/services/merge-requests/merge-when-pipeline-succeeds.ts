import { inTransaction, prepare } from '../../db/connection.js';
import type { PipelineRow } from '../../db/tables/ci.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { findProjectById } from '../../db/tables/projects.js';
import { findUserById } from '../../db/tables/users.js';
import { AppError } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { actingAs } from '../users/authentication.js';
import { acceptMergeRequest, type AcceptParams } from './accept.js';

/**
 * Merge when pipeline succeeds (issue 15, item 6; GITLAB-NOTES 2.3 "MWPS"): when a pipeline of a
 * flagged merge request's head sha succeeds, the merge runs in the background worker as the user
 * who set the flag, with what they asked for and the same checks as an accept. A failed pipeline
 * leaves the flag set (a later pipeline of the same head may still succeed). Only the primary merges.
 */
export function pipelineStatusChanged(ctx: SiteContext, pipeline: PipelineRow): void {
  if (ctx.config.role !== 'primary' || pipeline.status !== 'success') return;
  const ids = prepare(
    ctx.db,
    "SELECT id FROM merge_requests WHERE source_project_id = ? AND head_sha = ? AND merge_when_pipeline_succeeds = 1 AND state = 'opened' ORDER BY id",
  )
    .pluck()
    .all(pipeline.project_id, pipeline.sha) as number[];
  if (ids.length) ctx.bus.toBackground({ kind: 'pipeline-merges', ids });
}

/** The background worker's part: merges each flagged merge request still open and flagged. */
export function mergeAfterPipelines(ctx: SiteContext, mergeRequestIds: readonly number[]): void {
  for (const id of mergeRequestIds) {
    const mergeRequest = findMergeRequestById(ctx.db, id);
    if (!mergeRequest?.merge_when_pipeline_succeeds || mergeRequest.state !== 'opened') continue;
    ctx.log.info({ merge_request_id: id }, 'merge when pipeline succeeds: merging');
    void mergeAfterPipeline(ctx, mergeRequest);
  }
}

/** Tracks the background merges, so tests and a stopping site can wait for them. */
const running = new WeakMap<SiteContext, Set<Promise<void>>>();

/** Resolves once every background merge of the site has finished. */
export async function pipelineMergesSettled(ctx: SiteContext): Promise<void> {
  await Promise.all([...(running.get(ctx) ?? [])]);
}

function mergeAfterPipeline(ctx: SiteContext, mergeRequest: MergeRequestRow): Promise<void> {
  const work = (async () => {
    const user = mergeRequest.merge_user_id === null ? undefined : findUserById(ctx.db, mergeRequest.merge_user_id);
    const project = findProjectById(ctx.db, mergeRequest.target_project_id);
    if (!user || !project) return;
    const actor = actingAs(user);
    const params = JSON.parse(mergeRequest.merge_params ?? '{}') as AcceptParams;
    try {
      await acceptMergeRequest(ctx, project, actor, mergeRequest, { ...params, mergeWhenPipelineSucceeds: false });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      // The merge request stays flagged with the reason, as GitLab's merge_error shows it.
      inTransaction(ctx.db, () => updateMergeRequestRow(ctx.db, mergeRequest.id, { merge_error: error.message }));
      ctx.log.info({ merge_request_id: mergeRequest.id, reason: error.message }, 'merge when pipeline succeeds: not merged');
    }
  })().catch((error: unknown) => {
    if (ctx.db.open) ctx.log.error({ err: error, merge_request_id: mergeRequest.id }, 'merge when pipeline succeeds failed');
  });
  let set = running.get(ctx);
  if (!set) running.set(ctx, (set = new Set()));
  set.add(work);
  void work.finally(() => set.delete(work));
  return work;
}
