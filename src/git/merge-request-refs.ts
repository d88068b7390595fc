import { git } from './in-repository.js';

/** The ref the target repository keeps for a merge request's source head, so its commits stay reachable (GitLab's refs/merge-requests/<iid>/head). */
const mergeRequestHeadRef = (iid: number): string => `refs/merge-requests/${iid}/head`;

/**
 * Points refs/merge-requests/<iid>/head of the target repository at `sha`. A fork's commit is
 * fetched from the source repository first (by sha, which the local upload-pack is told to allow),
 * so the target holds every commit of the merge request even after the fork or its branch is gone.
 */
export async function writeMergeRequestHead(targetRepository: string, sourceRepository: string, iid: number, sha: string): Promise<void> {
  const ref = mergeRequestHeadRef(iid);
  if (sourceRepository !== targetRepository) {
    await git(targetRepository, [
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--upload-pack=git -c uploadpack.allowAnySHA1InWant=true upload-pack',
      sourceRepository,
      `+${sha}:${ref}`,
    ]);
    return;
  }
  await git(targetRepository, ['update-ref', '-m', `geoforge: merge request !${iid} head`, ref, sha]);
}
