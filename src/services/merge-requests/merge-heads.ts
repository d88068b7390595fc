import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { repositoryOf } from '../../git/in-repository.js';
import { writeMergeRequestHead } from '../../git/merge-request-refs.js';
import { branchHeads } from '../../git/merges.js';
import { branchCommit } from '../../git/refs.js';
import type { SiteContext } from '../../site-context.js';

/** Where a merge request's merge is computed, and the two heads it combines (null: that branch is gone). */
export interface MergeHeads {
  /** The target project's repository: merges, merge refs and the merge request refs live there. */
  readonly repository: string;
  readonly source: string | null;
  readonly target: string | null;
}

/** The ref holding the merge result (GitLab's merge_ref_path), refreshed by each mergeability check. */
export const mergeRequestMergeRef = (mergeRequest: Pick<MergeRequestRow, 'iid'>): string => `refs/merge-requests/${mergeRequest.iid}/merge`;

/**
 * The current heads of a merge request's source and target branches, both present in the target
 * repository: a fork's source head is fetched into refs/merge-requests/<iid>/head first (the
 * after-push path may not have run yet), so a merge into the upstream finds every commit there.
 */
export async function currentMergeHeads(ctx: SiteContext, mergeRequest: MergeRequestRow): Promise<MergeHeads> {
  const repository = repositoryOf(ctx, { id: mergeRequest.target_project_id });
  if (mergeRequest.source_project_id === mergeRequest.target_project_id) {
    // Both heads in one git call: merges read them on every check and accept.
    const heads = await branchHeads(repository, [mergeRequest.source_branch, mergeRequest.target_branch]);
    return { repository, source: heads.get(mergeRequest.source_branch) ?? null, target: heads.get(mergeRequest.target_branch) ?? null };
  }
  const target = await branchCommit(repository, mergeRequest.target_branch);
  if (mergeRequest.source_project_id === null) return { repository, source: null, target };
  const sourceRepository = repositoryOf(ctx, { id: mergeRequest.source_project_id });
  const source = await branchCommit(sourceRepository, mergeRequest.source_branch);
  if (source) await writeMergeRequestHead(repository, sourceRepository, mergeRequest.iid, source);
  return { repository, source, target };
}
