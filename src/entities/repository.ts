/** Repository entities (GitLab ENT Commit, CommitDetail, Branch, Diff, Compare, RepoFile). */
import type { CommitRecord } from '../git/commit-log.js';
import type { DiffStats, FileDiff } from '../git/diff.js';
import { isoTime } from './column-values.js';

export interface BranchRecord {
  readonly name: string;
  readonly commit: CommitRecord;
  readonly merged: boolean;
  readonly isDefault: boolean;
}

const titleOf = (message: string) => message.split('\n', 1)[0] ?? '';

export function commitEntity(commit: CommitRecord) {
  return {
    id: commit.id,
    short_id: commit.id.slice(0, 8),
    title: titleOf(commit.message),
    created_at: isoTime(commit.committedDate),
    parent_ids: commit.parentIds,
    message: commit.message,
    author_name: commit.authorName,
    author_email: commit.authorEmail,
    authored_date: isoTime(commit.authoredDate),
    committer_name: commit.committerName,
    committer_email: commit.committerEmail,
    committed_date: isoTime(commit.committedDate),
  };
}

export function commitDetail(commit: CommitRecord, stats: DiffStats, projectId: number) {
  return {
    ...commitEntity(commit),
    stats: { additions: stats.additions, deletions: stats.deletions, total: stats.additions + stats.deletions },
    status: null,
    last_pipeline: null,
    project_id: projectId,
  };
}

export function diffEntity(diff: FileDiff) {
  return {
    old_path: diff.oldPath,
    new_path: diff.newPath,
    a_mode: diff.aMode,
    b_mode: diff.bMode,
    diff: diff.diff,
    new_file: diff.newFile,
    renamed_file: diff.renamedFile,
    deleted_file: diff.deletedFile,
  };
}

/**
 * The default branch is the one protected branch (pushes to it are allowed, force-pushes and
 * deletion are not: git-http's protectedRef), so developers can push and merge everywhere.
 */
export function branchEntity(branch: BranchRecord) {
  return {
    name: branch.name,
    commit: commitEntity(branch.commit),
    merged: branch.merged,
    protected: branch.isDefault,
    developers_can_push: true,
    developers_can_merge: true,
    can_push: true,
    default: branch.isDefault,
  };
}

export function compareEntity(commits: CommitRecord[], diffs: FileDiff[], sameRef: boolean) {
  const last = commits[commits.length - 1];
  return {
    commit: last ? commitEntity(last) : null,
    commits: commits.map(commitEntity),
    diffs: diffs.map(diffEntity),
    compare_timeout: false,
    compare_same_ref: sameRef,
  };
}
