import type { PipelineRow } from '../db/tables/ci.js';
import type { LabelRow } from '../db/tables/labels.js';
import type { MergeRequestReviewerRow } from '../db/tables/merge-request-reviewers.js';
import type { UserRow } from '../db/tables/users.js';
import type { MergeRequestDiffCommitRow, MergeRequestDiffFileRow, MergeRequestDiffRow } from '../db/tables/merge-request-diffs.js';
import type { MergeRequestRow } from '../db/tables/merge-requests.js';
import { pipelineView } from './ci.js';
import { flag, isoTime } from './column-values.js';
import { taskCompletion } from './issues.js';
import { labelBasic } from './labels.js';
import { issuableHead, milestoneOf, projectPathOf, userOf, type IssuableRelations } from './issuables.js';
import { timeStats } from './time-stats.js';
import { userBasic, type EntityContext } from './users.js';

/**
 * Everything the merge request views need beyond the row, loaded by
 * services/merge-requests/relations.ts for a whole page, one query per kind: entities never query.
 */
export interface MergeRequestRelations extends IssuableRelations {
  /** Latest diff versions by id (single views: `changes_count`). */
  readonly diffs: ReadonlyMap<number, MergeRequestDiffRow>;
  /** Head pipelines by merge request id (single views: `pipeline`, `head_pipeline`), only for callers who may read them. */
  readonly pipelines: ReadonlyMap<number, PipelineRow>;
  /** The reviewers of each merge request, in the order they were asked. */
  readonly reviewers: ReadonlyMap<number, readonly { readonly reviewer: MergeRequestReviewerRow; readonly user: UserRow }[]>;
  /** What the stored mergeability says, by merge request id (services/merge-requests/detailed-status.ts). */
  readonly mergeability: ReadonlyMap<number, MergeabilityFacts>;
  /** Whether the caller may merge into the target branch (single views: `user.can_merge`). */
  readonly canMerge: ReadonlyMap<number, boolean>;
}

/** GitLab 15.6's detailed_merge_status values geoforge can reach (GitLab's others need features it lacks). */
export type DetailedMergeStatus =
  | 'preparing'
  | 'unchecked'
  | 'not_open'
  | 'draft_status'
  | 'broken_status'
  | 'discussions_not_resolved'
  | 'ci_must_pass'
  | 'ci_still_running'
  | 'conflict'
  | 'not_approved'
  | 'merge_time'
  | 'mergeable';

/** What the views show of a merge request's mergeability. */
export interface MergeabilityFacts {
  readonly detailed_merge_status: DetailedMergeStatus;
  /** GitLab's mergeable_discussions_state?: true unless the project requires resolved discussions and one is not. */
  readonly blocking_discussions_resolved: boolean;
}

/** How a list shows its merge requests: `with_labels_details` gives labels as objects. */
export interface MergeRequestViewOptions {
  readonly labelsDetails?: boolean;
}

/** GitLab's work in progress prefixes (`WIP:`, `[WIP]`, `WIP `, and the later `Draft:`, `[Draft]`, `(Draft)`): such a merge request cannot be merged. */
const WIP_PREFIX = /^\s*(?:\[wip\]\s*|wip:\s*|wip\s+|\[draft\]\s*|draft:\s*|\(draft\)\s*|draft\s+-\s*)+/i;

export const isWorkInProgress = (title: string): boolean => WIP_PREFIX.test(title);

/** The number of changed files as GitLab shows it: a string, `1000+` over the cap (SPEC "changes_count"). */
export const CHANGES_COUNT_CAP = 1000;

const pathOf = (row: MergeRequestRow, rel: MergeRequestRelations) => projectPathOf(row.target_project_id, rel, `merge request ${row.id}`);

/** The fields every merge request view opens with (its project: the target). */
export const mergeRequestHead = (row: MergeRequestRow) => issuableHead(row, row.target_project_id);

const webUrl = (row: MergeRequestRow, rel: MergeRequestRelations, ctx: EntityContext) => `${ctx.externalUrl}/${pathOf(row, rel)}/merge_requests/${row.iid}`;

/** MergeRequestSimple (`view=simple` in lists): id, iid, project, title, description, state, times and URL. */
export function mergeRequestSimple(row: MergeRequestRow, rel: MergeRequestRelations, ctx: EntityContext) {
  return {
    ...mergeRequestHead(row),
    web_url: webUrl(row, rel, ctx),
  };
}

const labelsOf = (row: MergeRequestRow, rel: MergeRequestRelations, options: MergeRequestViewOptions) => {
  const labels = [...(rel.labels.get(row.id) ?? [])].sort((a: LabelRow, b: LabelRow) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
  return options.labelsDetails ? labels.map(labelBasic) : labels.map((label) => label.title);
};

/**
 * MergeRequestBasic (ENT, EE fields included): the list view, with GitLab 17's additions after
 * the 10.8 fields: assignees and reviewers, draft, mergeability, references, task status.
 */
export function mergeRequestBasic(row: MergeRequestRow, rel: MergeRequestRelations, ctx: EntityContext, options: MergeRequestViewOptions = {}) {
  const votes = rel.votes.get(row.id);
  const forFork = row.source_project_id !== row.target_project_id;
  const assignee = userOf(row.assignee_id, rel, ctx);
  const mergeability = rel.mergeability.get(row.id);
  const reference = `!${row.iid}`;
  return {
    ...mergeRequestHead(row),
    merged_by: userOf(row.merged_by_id, rel, ctx),
    merge_user: userOf(row.merged_by_id ?? row.merge_user_id, rel, ctx),
    merged_at: isoTime(row.merged_at),
    merge_after: isoTime(row.merge_after),
    prepared_at: isoTime(row.prepared_at),
    closed_by: userOf(row.closed_by_id, rel, ctx),
    closed_at: isoTime(row.closed_at),
    target_branch: row.target_branch,
    source_branch: row.source_branch,
    upvotes: votes?.upvotes ?? 0,
    downvotes: votes?.downvotes ?? 0,
    author: userOf(row.author_id, rel, ctx),
    assignee,
    assignees: assignee ? [assignee] : [],
    reviewers: (rel.reviewers.get(row.id) ?? []).map(({ user }) => userBasic(user, ctx)),
    source_project_id: row.source_project_id,
    target_project_id: row.target_project_id,
    labels: labelsOf(row, rel, options),
    draft: isWorkInProgress(row.title),
    imported: false,
    imported_from: 'none',
    work_in_progress: isWorkInProgress(row.title),
    milestone: milestoneOf(row, rel, ctx),
    merge_when_pipeline_succeeds: flag(row.merge_when_pipeline_succeeds),
    merge_status: row.merge_status,
    detailed_merge_status: mergeability?.detailed_merge_status ?? 'unchecked',
    sha: row.head_sha,
    merge_commit_sha: row.merge_commit_sha,
    squash_commit_sha: row.squash_commit_sha,
    user_notes_count: rel.userNotesCounts.get(row.id) ?? 0,
    discussion_locked: row.discussion_locked === null ? null : flag(row.discussion_locked),
    should_remove_source_branch: row.should_remove_source_branch === null ? null : flag(row.should_remove_source_branch),
    force_remove_source_branch: flag(row.force_remove_source_branch),
    ...(forFork ? { allow_collaboration: flag(row.allow_maintainer_to_push), allow_maintainer_to_push: flag(row.allow_maintainer_to_push) } : {}),
    reference,
    references: { short: reference, relative: reference, full: `${pathOf(row, rel)}${reference}` },
    web_url: webUrl(row, rel, ctx),
    time_stats: timeStats(row),
    squash: flag(row.squash),
    squash_on_merge: flag(row.squash),
    task_completion_status: taskCompletion(row.description),
    has_conflicts: row.merge_status === 'cannot_be_merged',
    blocking_discussions_resolved: mergeability?.blocking_discussions_resolved ?? true,
    approvals_before_merge: row.approvals_before_merge,
  };
}

/** A version's `real_size` as the views show it. */
function changesCount(row: MergeRequestRow, rel: MergeRequestRelations): string | null {
  const diff = row.latest_merge_request_diff_id === null ? undefined : rel.diffs.get(row.latest_merge_request_diff_id);
  return diff?.real_size ?? null;
}

/**
 * MergeRequest (ENT): one merge request, with the caller's subscription, its size, its head
 * pipeline (`pipeline`, and GitLab 17's fuller `head_pipeline`), diff refs and whether the caller may merge it.
 */
export function mergeRequestView(row: MergeRequestRow, rel: MergeRequestRelations, ctx: EntityContext) {
  const pipeline = rel.pipelines.get(row.id);
  const sourcePath = row.source_project_id === null ? undefined : rel.projectPaths.get(row.source_project_id);
  return Object.assign(mergeRequestBasic(row, rel, ctx), {
    subscribed: rel.subscribed.has(row.id),
    changes_count: changesCount(row, rel),
    latest_build_started_at: isoTime(pipeline?.started_at),
    latest_build_finished_at: isoTime(pipeline?.finished_at),
    first_deployed_to_production_at: null,
    pipeline: pipeline ? { id: pipeline.id, sha: pipeline.sha, ref: pipeline.ref, status: pipeline.status, web_url: `${ctx.externalUrl}/${pathOf(row, rel)}/pipelines/${pipeline.id}` } : null,
    head_pipeline: pipeline ? pipelineView(pipeline, { projectPath: sourcePath ?? pathOf(row, rel), users: rel.users }, ctx) : null,
    diff_refs: row.head_sha ? { base_sha: row.base_sha, head_sha: row.head_sha, start_sha: row.start_sha } : null,
    merge_error: row.merge_error,
    rebase_in_progress: flag(row.rebase_in_progress),
    first_contribution: false,
    user: { can_merge: rel.canMerge.get(row.id) ?? false },
  });
}

/** GitLab 17's MergeRequestReviewer: the user, the review state and when the review was asked for. */
export function mergeRequestReviewerView(reviewer: MergeRequestReviewerRow, user: UserRow, ctx: EntityContext) {
  return { user: userBasic(user, ctx), state: reviewer.state, created_at: isoTime(reviewer.created_at) };
}

/** A stored commit of a version as GitLab's Commit entity. */
export function diffCommitEntity(commit: MergeRequestDiffCommitRow) {
  const message = commit.message;
  return {
    id: commit.sha,
    short_id: commit.sha.slice(0, 8),
    title: message.split('\n', 1)[0]!.trim(),
    created_at: isoTime(commit.committed_date),
    parent_ids: JSON.parse(commit.parent_ids) as string[],
    message,
    author_name: commit.author_name,
    author_email: commit.author_email,
    authored_date: isoTime(commit.authored_date),
    committer_name: commit.committer_name,
    committer_email: commit.committer_email,
    committed_date: isoTime(commit.committed_date),
  };
}

/** A stored file diff as GitLab's Diff entity; a collapsed (too large) file shows no text. */
export function diffFileEntity(file: MergeRequestDiffFileRow) {
  return {
    old_path: file.old_path,
    new_path: file.new_path,
    a_mode: file.a_mode,
    b_mode: file.b_mode,
    new_file: flag(file.new_file),
    renamed_file: flag(file.renamed_file),
    deleted_file: flag(file.deleted_file),
    diff: file.diff,
    too_large: flag(file.too_large),
    collapsed: flag(file.collapsed),
  };
}

/** MergeRequestChanges: the merge request with the files of its latest version. */
export function mergeRequestChanges(row: MergeRequestRow, rel: MergeRequestRelations, ctx: EntityContext, files: readonly MergeRequestDiffFileRow[]) {
  return Object.assign(mergeRequestView(row, rel, ctx), { changes: files.map(diffFileEntity) });
}

/** MergeRequestDiff: one version in the versions list. */
export function mergeRequestDiffView(diff: MergeRequestDiffRow) {
  return {
    id: diff.id,
    head_commit_sha: diff.head_commit_sha,
    base_commit_sha: diff.base_commit_sha,
    start_commit_sha: diff.start_commit_sha,
    created_at: isoTime(diff.created_at),
    merge_request_id: diff.merge_request_id,
    state: diff.state,
    real_size: diff.real_size,
  };
}

/** MergeRequestDiffFull: one version with its commits (newest first) and its files. */
export function mergeRequestDiffFull(diff: MergeRequestDiffRow, commits: readonly MergeRequestDiffCommitRow[], files: readonly MergeRequestDiffFileRow[]) {
  return Object.assign(mergeRequestDiffView(diff), { commits: commits.map(diffCommitEntity), diffs: files.map(diffFileEntity) });
}
