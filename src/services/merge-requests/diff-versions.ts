import { inTransaction } from '../../db/connection.js';
import {
  findMergeRequestDiffById,
  insertMergeRequestDiff,
  insertMergeRequestDiffCommit,
  insertMergeRequestDiffFile,
  type MergeRequestDiffRow,
  type MergeRequestDiffState,
} from '../../db/tables/merge-request-diffs.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { CHANGES_COUNT_CAP } from '../../entities/merge-requests.js';
import { commitsAndMergeBase, commitsExcluding, mergeBase, type CommitRecord } from '../../git/commit-log.js';
import { diffFiles, type FileDiff } from '../../git/diff.js';
import { repositoryOf } from '../../git/in-repository.js';
import { oneAtATimeInSite } from '../../git/ref-lock.js';
import { branchCommit } from '../../git/refs.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';

/**
 * GitLab's limits of a stored diff (Commit.max_diff_options, Gitlab::Git::Diff): at most 1,000
 * files and 50,000 lines per version (more is `overflow`, the files up to the limit kept and
 * `real_size` shown as `1000+`), and a file whose patch is over 100 KiB is kept without its text
 * (too_large, collapsed). Commits: the newest 10,000.
 */
export const DIFF_LIMITS = { maxFiles: CHANGES_COUNT_CAP, maxLines: 50_000, maxPatchBytes: 100 * 1024, maxCommits: 10_000 } as const;

/** A version as read from git, before it is stored. */
interface VersionRead {
  readonly headSha: string;
  readonly startSha: string | null;
  readonly baseSha: string | null;
  readonly commits: readonly CommitRecord[];
  readonly files: readonly FileDiff[];
}

/**
 * Reads the version the merge request's head makes against its target branch now, from the target
 * repository (which holds a fork's commits under refs/merge-requests/<iid>/head): start is the
 * target head, base the merge base, the commits those of the head that the target lacks, and the
 * files the diff from the base to the head. `knownStart`: the target head as the caller just read it
 * (undefined: read it here).
 */
async function readVersion(ctx: SiteContext, mergeRequest: MergeRequestRow, headSha: string, knownStart: string | null | undefined): Promise<VersionRead> {
  const repository = repositoryOf(ctx, { id: mergeRequest.target_project_id });
  const startSha = knownStart !== undefined ? knownStart : await branchCommit(repository, mergeRequest.target_branch);
  if (!startSha) {
    const [commits, files] = await Promise.all([commitsExcluding(repository, headSha, [], DIFF_LIMITS.maxCommits), diffFiles(repository, null, headSha)]);
    return { headSha, startSha, baseSha: null, commits, files };
  }
  // The commits' walk names the merge base too, unless the history is tangled enough to ask git for it.
  const walked = await commitsAndMergeBase(repository, headSha, startSha, DIFF_LIMITS.maxCommits);
  const baseSha = walked.base === undefined ? await mergeBase(repository, startSha, headSha) : walked.base;
  const files = await diffFiles(repository, baseSha ?? startSha, headSha);
  return { headSha, startSha, baseSha: baseSha ?? startSha, commits: walked.commits, files };
}

/** The files of a version within the limits: which are kept, which lose their text, and whether it overflowed. */
function limitFiles(files: readonly FileDiff[]): { kept: { file: FileDiff; tooLarge: boolean }[]; overflow: boolean } {
  const kept: { file: FileDiff; tooLarge: boolean }[] = [];
  let lines = 0;
  for (const file of files) {
    if (kept.length >= DIFF_LIMITS.maxFiles || lines >= DIFF_LIMITS.maxLines) return { kept, overflow: true };
    const tooLarge = Buffer.byteLength(file.diff) > DIFF_LIMITS.maxPatchBytes;
    if (!tooLarge) lines += file.diff.split('\n').length;
    kept.push({ file, tooLarge });
  }
  return { kept, overflow: false };
}

/** Stores a version read from git and makes it the merge request's latest, in one transaction. */
function storeVersion(ctx: SiteContext, mergeRequestId: number, read: VersionRead): MergeRequestDiffRow | null {
  const { db } = ctx;
  return inTransaction(db, () => {
    const mergeRequest = findMergeRequestById(db, mergeRequestId);
    if (!mergeRequest) return null;
    const { kept, overflow } = limitFiles(read.files);
    const state: MergeRequestDiffState = overflow ? 'overflow' : read.files.length === 0 ? 'empty' : 'collected';
    const now = nowIso();
    const id = insertMergeRequestDiff(db, {
      merge_request_id: mergeRequestId,
      state,
      base_commit_sha: read.baseSha,
      start_commit_sha: read.startSha,
      head_commit_sha: read.headSha,
      real_size: overflow ? `${kept.length}+` : String(kept.length),
      commits_count: read.commits.length,
      files_count: kept.length,
      created_at: now,
      updated_at: now,
    });
    read.commits.forEach((commit, order) =>
      insertMergeRequestDiffCommit(db, {
        merge_request_diff_id: id,
        relative_order: order,
        sha: commit.id,
        parent_ids: JSON.stringify(commit.parentIds),
        author_name: commit.authorName,
        author_email: commit.authorEmail,
        authored_date: commit.authoredDate,
        committer_name: commit.committerName,
        committer_email: commit.committerEmail,
        committed_date: commit.committedDate,
        message: commit.message,
      }),
    );
    kept.forEach(({ file, tooLarge }, order) =>
      insertMergeRequestDiffFile(db, {
        merge_request_diff_id: id,
        relative_order: order,
        new_file: file.newFile ? 1 : 0,
        renamed_file: file.renamedFile ? 1 : 0,
        deleted_file: file.deletedFile ? 1 : 0,
        too_large: tooLarge ? 1 : 0,
        collapsed: tooLarge ? 1 : 0,
        binary: /^Binary files .* differ$/m.test(file.diff) ? 1 : 0,
        a_mode: file.aMode,
        b_mode: file.bMode,
        old_path: file.oldPath,
        new_path: file.newPath,
        diff: tooLarge ? '' : file.diff,
      }),
    );
    updateMergeRequestRow(db, mergeRequestId, {
      latest_merge_request_diff_id: id,
      head_sha: read.headSha,
      base_sha: read.baseSha,
      start_sha: read.startSha,
      // GitLab's prepared_at: when the merge request's first version was ready.
      ...(mergeRequest.prepared_at === null ? { prepared_at: now } : {}),
    });
    return findMergeRequestDiffById(db, id)!;
  });
}

/**
 * Records a diff version of the merge request for the source head `headSha` (on create and after
 * each push to the source branch): git reads first, outside any transaction, then the rows in one.
 * Nothing is recorded when the latest version already has this head (a push that did not move
 * it), unless `newTarget` (the target branch changed). `startSha`: the target branch's head if the
 * caller just read it (a create reads both heads in one git call), else read here. Returns the new
 * version, or null. The head must be reachable in the target repository
 * (refs/merge-requests/<iid>/head written first).
 */
export function recordDiffVersion(ctx: SiteContext, mergeRequestId: number, headSha: string, newTarget = false, startSha?: string | null): Promise<MergeRequestDiffRow | null> {
  const work = async () => {
    const mergeRequest = findMergeRequestById(ctx.db, mergeRequestId);
    if (!mergeRequest) return null;
    const latest = mergeRequest.latest_merge_request_diff_id === null ? undefined : findMergeRequestDiffById(ctx.db, mergeRequest.latest_merge_request_diff_id);
    if (latest && latest.head_commit_sha === headSha && !newTarget) return null;
    return storeVersion(ctx, mergeRequestId, await readVersion(ctx, mergeRequest, headSha, startSha));
  };
  // One recording at a time per merge request, site-wide: two pushes close together (through two workers too) store their versions in push order.
  return oneAtATimeInSite(`diff-version:${ctx.config.dataDir}:${mergeRequestId}`, work);
}
