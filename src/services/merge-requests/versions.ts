import type { Db } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { listPipelinesForShas, type PipelineRow } from '../../db/tables/ci.js';
import {
  countMergeRequestDiffs,
  diffCommitsOf,
  diffFilesOf,
  diffFilesPage,
  findMergeRequestDiff,
  findMergeRequestDiffById,
  mergeRequestDiffsOf,
  type MergeRequestDiffCommitRow,
  type MergeRequestDiffFileRow,
  type MergeRequestDiffRow,
} from '../../db/tables/merge-request-diffs.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { findProjectById } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import { can } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

/**
 * The reads of a merge request's diff versions (DESIGN "Diff versions are data"): commits, changes,
 * versions and diffs come from the stored rows, never from git, so they are fast and a secondary
 * answers them from its own database, even after the source branch is gone.
 */

const latestOf = (db: Db, mergeRequest: MergeRequestRow): MergeRequestDiffRow | undefined =>
  mergeRequest.latest_merge_request_diff_id === null ? undefined : findMergeRequestDiffById(db, mergeRequest.latest_merge_request_diff_id);

/** The commits of the latest version, newest first, paged (GET .../commits). */
export function mergeRequestCommits(db: Db, mergeRequest: MergeRequestRow, page: Page): Paged<MergeRequestDiffCommitRow> {
  const latest = latestOf(db, mergeRequest);
  if (!latest) return { rows: [], total: 0 };
  return { rows: diffCommitsOf(db, latest.id, page.perPage, page.offset), total: latest.commits_count };
}

/** The files of the latest version (GET .../changes). */
export function mergeRequestFiles(db: Db, mergeRequest: MergeRequestRow): MergeRequestDiffFileRow[] {
  const latest = latestOf(db, mergeRequest);
  return latest ? diffFilesOf(db, latest.id) : [];
}

/** One page of the files of the latest version (GET .../diffs). */
export function mergeRequestFilesPage(db: Db, mergeRequest: MergeRequestRow, page: Page): Paged<MergeRequestDiffFileRow> {
  const latest = latestOf(db, mergeRequest);
  if (!latest) return { rows: [], total: 0 };
  return { rows: diffFilesPage(db, latest.id, page.perPage, page.offset), total: latest.files_count };
}

/** The versions, newest first (GET .../versions). */
export function mergeRequestVersions(db: Db, mergeRequest: MergeRequestRow, page: Page): Paged<MergeRequestDiffRow> {
  return { rows: mergeRequestDiffsOf(db, mergeRequest.id, page.perPage, page.offset), total: countMergeRequestDiffs(db, mergeRequest.id) };
}

/** One version with its commits and files (GET .../versions/:version_id); 404 `Not found` for a version of another merge request. */
export function mergeRequestVersion(db: Db, mergeRequest: MergeRequestRow, id: number) {
  const version = findMergeRequestDiff(db, mergeRequest.id, id);
  if (!version) throw notFound();
  return { version, commits: diffCommitsOf(db, version.id), files: diffFilesOf(db, version.id) };
}

/**
 * The pipelines of the merge request (GET .../pipelines): those of its source project on the
 * commits of its latest version, newest first; none for callers who may not read that project's
 * pipelines (read_build).
 */
export function mergeRequestPipelines(db: Db, actor: Actor | null, mergeRequest: MergeRequestRow, page: Page): Paged<PipelineRow> {
  const latest = latestOf(db, mergeRequest);
  const source = mergeRequest.source_project_id === null ? undefined : findProjectById(db, mergeRequest.source_project_id);
  if (!latest || !source || !can(db, actor, 'read_build', source)) return { rows: [], total: 0 };
  return listPipelinesForShas(db, source.id, diffCommitsOf(db, latest.id).map((commit) => commit.sha), page);
}
