import type { Edition } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { findLatestPipelineForSha, type PipelineRow } from '../../db/tables/ci.js';
import { findMergeRequestDiffById, type MergeRequestDiffRow } from '../../db/tables/merge-request-diffs.js';
import { reviewersOfMergeRequests } from '../../db/tables/merge-request-reviewers.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { projectsByIds } from '../../db/tables/project-relations.js';
import type { MergeabilityFacts, MergeRequestRelations } from '../../entities/merge-requests.js';
import { loadIssuableRelations } from '../issuables/issuable-relations.js';
import { can } from '../permissions.js';
import { canMergeToBranch, refPolicyFor } from '../repository/ref-policy.js';
import type { Actor } from '../users/authentication.js';
import { mergeabilityFacts } from './detailed-status.js';
import { isMergeRequestSubscribed } from './subscriptions.js';

/**
 * What the merge request views need for a page: users, labels, milestones, project and group
 * paths, user note counts, votes and reviewers, one query per kind whatever the page size, and
 * each row's stored mergeability (detailed-status.ts). `single` adds what only the
 * one-merge-request views show: whether the caller follows it, its latest version (for
 * `changes_count`), its head pipeline (for callers who may read pipelines) and whether the caller
 * may merge it.
 */
export function loadMergeRequestRelations(db: Db, actor: Actor | null, rows: readonly MergeRequestRow[], options: { readonly edition: Edition; readonly single?: boolean }): MergeRequestRelations {
  const diffs = new Map<number, MergeRequestDiffRow>();
  const pipelines = new Map<number, PipelineRow>();
  const canMerge = new Map<number, boolean>();
  const targets = projectsByIds(db, rows.map((row) => row.target_project_id));
  if (options.single) {
    for (const row of rows) {
      const diff = row.latest_merge_request_diff_id === null ? undefined : findMergeRequestDiffById(db, row.latest_merge_request_diff_id);
      if (diff) diffs.set(diff.id, diff);
      const target = targets.get(row.target_project_id);
      // The head pipeline: the newest pipeline of the source project on the head sha (GitLab's head_pipeline).
      const pipeline = row.head_sha && row.source_project_id !== null && target && can(db, actor, 'read_build', target) ? findLatestPipelineForSha(db, row.source_project_id, row.head_sha) : undefined;
      if (pipeline) pipelines.set(row.id, pipeline);
      if (target) canMerge.set(row.id, row.state === 'opened' && !!actor && canMergeToBranch(refPolicyFor(db, actor, target), row.target_branch));
    }
  }
  const mergeability = new Map<number, MergeabilityFacts>();
  for (const row of rows) {
    const target = targets.get(row.target_project_id);
    if (target) mergeability.set(row.id, mergeabilityFacts(db, options.edition, target, row));
  }
  const userIds = [
    ...rows.flatMap((row) => [row.author_id, row.assignee_id, row.merged_by_id, row.merge_user_id, row.closed_by_id]),
    ...[...pipelines.values()].map((pipeline) => pipeline.user_id),
  ].filter((id): id is number => id !== null);
  const projectIds = rows.flatMap((row) => [row.target_project_id, ...(pipelines.has(row.id) && row.source_project_id !== null ? [row.source_project_id] : [])]);
  return {
    ...loadIssuableRelations(db, 'MergeRequest', rows, projectIds, userIds),
    subscribed: options.single && actor ? new Set(rows.filter((row) => isMergeRequestSubscribed(db, actor, row)).map((row) => row.id)) : new Set(),
    diffs,
    pipelines,
    reviewers: reviewersOfMergeRequests(db, rows.map((row) => row.id)),
    mergeability,
    canMerge,
  };
}
