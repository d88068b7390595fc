/** Repository entities (GitLab ENT Commit, CommitDetail, Branch, Diff, Compare, RepoFile). */
import type { CommitRecord } from '../git/commit-log.js';
import type { DiffStats, FileDiff } from '../git/diff.js';
import { isoTime } from './column-values.js';

export interface BranchRecord {
  readonly name: string;
  readonly commit: CommitRecord;
  readonly merged: boolean;
  readonly isDefault: boolean;
  /** From the protected branch rows matching the name (services/repository/ref-policy.ts branchProtection). */
  readonly protection: { readonly protected: boolean; readonly developersCanPush: boolean; readonly developersCanMerge: boolean; readonly canPush: boolean };
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
 * GitLab's Branch: `protected` when a protected branch row (name or wildcard) covers it,
 * `developers_can_push`/`_merge` when such a row lets developers, `can_push` for the caller.
 */
export function branchEntity(branch: BranchRecord) {
  return {
    name: branch.name,
    commit: commitEntity(branch.commit),
    merged: branch.merged,
    protected: branch.protection.protected,
    developers_can_push: branch.protection.developersCanPush,
    developers_can_merge: branch.protection.developersCanMerge,
    can_push: branch.protection.canPush,
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
