import type { Page, Paged } from '../../db/page.js';
import { mergeRequestsOfCommitPage, type MergeRequestRow, type MergeRequestState } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';
import { commitOf } from '../repository/project-commits.js';

/**
 * GET /projects/:id/repository/commits/:sha/merge_requests: the project's merge requests that
 * merged, squashed or carry the commit `ref` names (404 `Commit Not Found` when none), paged. The
 * caller checked read_merge_request.
 */
export async function mergeRequestsOfCommit(ctx: SiteContext, project: ProjectRow, ref: string, state: MergeRequestState | undefined, page: Page): Promise<Paged<MergeRequestRow>> {
  const sha = await commitOf(repositoryOf(ctx, project), ref);
  return mergeRequestsOfCommitPage(ctx.db, project.id, sha, state, page.perPage, page.offset);
}
