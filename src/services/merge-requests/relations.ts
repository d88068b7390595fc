import type { Db } from '../../db/connection.js';
import { findLatestPipelineForSha, type PipelineRow } from '../../db/tables/ci.js';
import { findMergeRequestDiffById, type MergeRequestDiffRow } from '../../db/tables/merge-request-diffs.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { projectsByIds } from '../../db/tables/project-relations.js';
import type { MergeRequestRelations } from '../../entities/merge-requests.js';
import { loadIssuableRelations } from '../issuables/issuable-relations.js';
import { can } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { isMergeRequestSubscribed } from './subscriptions.js';

/**
 * What the merge request views need for a page, one query per kind whatever the page size: users,
 * labels, milestones, project and group paths, user note counts and votes. `single` adds what only
 * the one-merge-request views show: whether the caller follows it, its latest version (for
 * `changes_count`) and its head pipeline (for callers who may read pipelines).
 */
export function loadMergeRequestRelations(db: Db, actor: Actor | null, rows: readonly MergeRequestRow[], options: { single?: boolean } = {}): MergeRequestRelations {
  const userIds = rows.flatMap((row) => [row.author_id, row.assignee_id, row.merged_by_id, row.closed_by_id].filter((id): id is number => id !== null));
  const diffs = new Map<number, MergeRequestDiffRow>();
  const pipelines = new Map<number, PipelineRow>();
  if (options.single) {
    const targets = projectsByIds(db, rows.map((row) => row.target_project_id));
    for (const row of rows) {
      const diff = row.latest_merge_request_diff_id === null ? undefined : findMergeRequestDiffById(db, row.latest_merge_request_diff_id);
      if (diff) diffs.set(diff.id, diff);
      const target = targets.get(row.target_project_id);
      // The head pipeline: the newest pipeline of the source project on the head sha (GitLab's head_pipeline).
      const pipeline = row.head_sha && row.source_project_id !== null && target && can(db, actor, 'read_build', target) ? findLatestPipelineForSha(db, row.source_project_id, row.head_sha) : undefined;
      if (pipeline) pipelines.set(row.id, pipeline);
    }
  }
  return {
    ...loadIssuableRelations(db, 'MergeRequest', rows, rows.map((row) => row.target_project_id), userIds),
    subscribed: options.single && actor ? new Set(rows.filter((row) => isMergeRequestSubscribed(db, actor, row)).map((row) => row.id)) : new Set(),
    diffs,
    pipelines,
  };
}
