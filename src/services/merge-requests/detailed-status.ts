import type { Db } from '../../db/connection.js';
import { findLatestPipelineForSha, type PipelineRow } from '../../db/tables/ci.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { hasUnresolvedNotes } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { Edition } from '../../config.js';
import { isWorkInProgress, type DetailedMergeStatus, type MergeabilityFacts } from '../../entities/merge-requests.js';
import { isApproved } from './approvals.js';

/** Pipelines that may still succeed (GitLab's HasStatus active statuses). */
export const isActivePipeline = (pipeline: PipelineRow): boolean => pipeline.status === 'created' || pipeline.status === 'pending' || pipeline.status === 'running';

/** The pipeline of the merge request's head: the latest of its head sha in the source project (GitLab's head_pipeline). */
export function headPipelineOf(db: Db, mergeRequest: MergeRequestRow, sourceHead: string | null = null): PipelineRow | undefined {
  const sha = sourceHead ?? mergeRequest.head_sha;
  if (!sha || mergeRequest.source_project_id === null) return undefined;
  return findLatestPipelineForSha(db, mergeRequest.source_project_id, sha);
}

/**
 * GitLab's DetailedMergeStatusService over what is stored, never a check run on a read (the
 * background check stores merge_status with the heads it saw): `preparing` before the first diff
 * version, `unchecked` until checked, then the first failing check in GitLab's order, else
 * `mergeable`. The CI check follows the merge's rule (GITLAB-NOTES decision 1, 10.x): without a
 * pipeline the requirement holds. Approvals are the ee edition's, through isApproved.
 */
export function mergeabilityFacts(db: Db, edition: Edition, project: ProjectRow, mergeRequest: MergeRequestRow, now = Date.now()): MergeabilityFacts {
  const discussionsBlock = project.only_allow_merge_if_all_discussions_are_resolved === 1 && hasUnresolvedNotes(db, 'MergeRequest', mergeRequest.id);
  const facts = (status: DetailedMergeStatus): MergeabilityFacts => ({ detailed_merge_status: status, blocking_discussions_resolved: !discussionsBlock });
  if (mergeRequest.state !== 'opened') return facts('not_open');
  if (mergeRequest.prepared_at === null) return facts('preparing');
  if (mergeRequest.merge_status === 'unchecked') return facts('unchecked');
  if (isWorkInProgress(mergeRequest.title)) return facts('draft_status');
  if (mergeRequest.merge_status_source_sha === null || mergeRequest.merge_status_target_sha === null) return facts('broken_status');
  if (discussionsBlock) return facts('discussions_not_resolved');
  if (project.only_allow_merge_if_pipeline_succeeds === 1) {
    const pipeline = headPipelineOf(db, mergeRequest);
    if (pipeline && pipeline.status !== 'success' && pipeline.status !== 'skipped') return facts(isActivePipeline(pipeline) ? 'ci_still_running' : 'ci_must_pass');
  }
  if (mergeRequest.merge_status === 'cannot_be_merged') return facts('conflict');
  if (edition === 'ee' && !isApproved(db, mergeRequest)) return facts('not_approved');
  if (mergeRequest.merge_after !== null && Date.parse(mergeRequest.merge_after) > now) return facts('merge_time');
  return facts('mergeable');
}
