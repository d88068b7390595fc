/** Repository entities (GitLab ENT Commit, CommitDetail, Branch, Diff, Compare, RepoFile, TreeObject, Contributor, BasicRef, BlameRange, CommitSignature). */
import type { CommitRecord } from '../git/commit-log.js';
import type { DiffStats, FileDiff } from '../git/diff.js';
import type { TreeEntry } from '../git/tree.js';
import type { Contributor } from '../services/repository/browse.js';
import type { CommitSignatureRecord } from '../services/repository/commit-signatures.js';
import type { BlameRange } from '../services/repository/files.js';
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

/** TreeObject: one entry of a repository tree. */
export function treeEntryEntity(entry: TreeEntry) {
  return { id: entry.id, name: entry.name, type: entry.type, path: entry.path, mode: entry.mode };
}

/** What blobs/:sha answers: the bytes base64, their size and the blob's id. */
export function blobEntity(blob: { id: string; size: number; content: Buffer }) {
  return { size: blob.size, encoding: 'base64', content: blob.content.toString('base64'), sha: blob.id };
}

/** Contributor: GitLab counts commits only; additions and deletions are always 0. */
export function contributorEntity(contributor: Contributor) {
  return { name: contributor.name, email: contributor.email, commits: contributor.commits, additions: 0, deletions: 0 };
}

/** BasicRef: a branch or tag holding a commit. */
export function basicRefEntity(ref: { type: 'branch' | 'tag'; name: string }) {
  return { type: ref.type, name: ref.name };
}

/** BlameRange: the commit and the lines it last changed. */
export function blameRangeEntity(range: BlameRange) {
  return { commit: commitEntity(range.commit), lines: range.lines };
}

/** CommitSignature of a GPG signature (GitLab's signature_type PGP with GpgCommitSignature merged in); subkeys have no rows here, so gpg_key_subkey_id is null. */
export function commitSignatureEntity(signature: CommitSignatureRecord) {
  return {
    signature_type: 'PGP',
    gpg_key_id: signature.gpgKeyId,
    gpg_key_primary_keyid: signature.primaryKeyId,
    gpg_key_user_name: signature.userName,
    gpg_key_user_email: signature.userEmail,
    verification_status: signature.status,
    gpg_key_subkey_id: null,
  };
}
