import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { fromCurrentCopy, type ReadRouting } from '../geo/read-routing.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { addBranch, branchListParams, branchParams, branchProtectParams, listProjectBranches, protectOneBranch, removeBranch, removeMergedBranches, showBranch, unprotectOneBranch } from './branches.js';
import { archiveParams, contributorParams, downloadArchive, mergeBaseParams, showBlob, showContributors, showMergeBase, showRawBlob, showTree, treeParams } from './browse.js';
import { addCommit, commitListParams, commitParams, commitRefsParams, listProjectCommits, showCommit, showCommitDiff, showCommitRefs, showCommitSignature } from './commits.js';
import { cherryPickCommit, commitChangeParams, revertCommit } from './commit-changes.js';
import { compareParams, showCompare } from './compare.js';
import { addFile, editFile, fileDeleteParams, fileRefParams, fileWriteParams, rawFileParams, removeFile, showFile, showFileBlame, showRawFile } from './files.js';
import {
  addProtectedBranch,
  addProtectedTag,
  listProjectProtectedBranches,
  listProjectProtectedTags,
  protectedBranchParams,
  protectedTagParams,
  removeProtectedBranch,
  removeProtectedTag,
  showProtectedBranch,
  showProtectedTag,
} from './protected-refs.js';
import { addRelease, addTag, editRelease, listTagsOfProject, releaseParams, removeTag, showTag, tagListParams, tagParams } from './tags.js';

/**
 * The repository API (GITLAB-NOTES 5: Branches, Repository files, Commits; compare). Reads need
 * download_code (public and internal projects to whoever sees them, private ones to reporters and
 * up); writes need push_code (developers, not on an archived project) and commit through the
 * commit writer. GitLab's order (GITLAB-NOTES 1.4): 401, then 404 for a project not visible, then 403.
 */
const reader = [loadProject(), requireAbility('download_code')];
const writer = [signedIn, loadProject(), requireAbility('push_code')];
/** Protections are maintainers' (GitLab's authorize_admin_project). */
const protector = [signedIn, loadProject(), requireAbility('admin_project')];
const base = '/projects/:id/repository';

const routes: readonly Route[] = [
  { method: 'get', path: `${base}/branches`, guards: [...reader, branchListParams, paged], handler: listProjectBranches },
  { method: 'get', path: `${base}/branches/:branch`, guards: reader, handler: showBranch },
  { method: 'post', path: `${base}/branches`, guards: [...writer, branchParams], handler: addBranch },
  { method: 'delete', path: `${base}/branches/:branch`, guards: [...writer, unmodifiedSince], handler: removeBranch },
  { method: 'put', path: `${base}/branches/:branch/protect`, guards: [...protector, branchProtectParams], handler: protectOneBranch },
  { method: 'put', path: `${base}/branches/:branch/unprotect`, guards: protector, handler: unprotectOneBranch },
  { method: 'delete', path: `${base}/merged_branches`, guards: writer, handler: removeMergedBranches },

  { method: 'get', path: `${base}/tags`, guards: [...reader, tagListParams, paged], handler: listTagsOfProject },
  { method: 'get', path: `${base}/tags/:tag_name`, guards: reader, handler: showTag },
  { method: 'post', path: `${base}/tags`, guards: [...writer, tagParams], handler: addTag },
  { method: 'delete', path: `${base}/tags/:tag_name`, guards: [...writer, unmodifiedSince], handler: removeTag },
  { method: 'post', path: `${base}/tags/:tag_name/release`, guards: [...writer, releaseParams], handler: addRelease },
  { method: 'put', path: `${base}/tags/:tag_name/release`, guards: [...writer, releaseParams], handler: editRelease },

  { method: 'get', path: '/projects/:id/protected_branches', guards: [...protector, paged], handler: listProjectProtectedBranches },
  { method: 'get', path: '/projects/:id/protected_branches/:name', guards: protector, handler: showProtectedBranch },
  { method: 'post', path: '/projects/:id/protected_branches', guards: [...protector, protectedBranchParams], handler: addProtectedBranch },
  { method: 'delete', path: '/projects/:id/protected_branches/:name', guards: [...protector, unmodifiedSince], handler: removeProtectedBranch },
  { method: 'get', path: '/projects/:id/protected_tags', guards: [...protector, paged], handler: listProjectProtectedTags },
  { method: 'get', path: '/projects/:id/protected_tags/:name', guards: protector, handler: showProtectedTag },
  { method: 'post', path: '/projects/:id/protected_tags', guards: [...protector, protectedTagParams], handler: addProtectedTag },
  { method: 'delete', path: '/projects/:id/protected_tags/:name', guards: [...protector, unmodifiedSince], handler: removeProtectedTag },

  { method: 'get', path: `${base}/files/:file_path/raw`, guards: [...reader, rawFileParams], handler: showRawFile },
  { method: 'get', path: `${base}/files/:file_path/blame`, guards: [...reader, fileRefParams], handler: showFileBlame },
  { method: 'get', path: `${base}/files/:file_path`, guards: [...reader, fileRefParams], handler: showFile },
  { method: 'post', path: `${base}/files/:file_path`, guards: [...writer, fileWriteParams], handler: addFile },
  { method: 'put', path: `${base}/files/:file_path`, guards: [...writer, fileWriteParams], handler: editFile },
  { method: 'delete', path: `${base}/files/:file_path`, guards: [...writer, fileDeleteParams], handler: removeFile },

  { method: 'get', path: `${base}/commits`, guards: [...reader, commitListParams], handler: listProjectCommits },
  { method: 'get', path: `${base}/commits/:sha`, guards: reader, handler: showCommit },
  { method: 'get', path: `${base}/commits/:sha/diff`, guards: reader, handler: showCommitDiff },
  { method: 'get', path: `${base}/commits/:sha/refs`, guards: [...reader, commitRefsParams], handler: showCommitRefs },
  { method: 'get', path: `${base}/commits/:sha/signature`, guards: reader, handler: showCommitSignature },
  { method: 'post', path: `${base}/commits`, guards: [...writer, commitParams], handler: addCommit },
  { method: 'post', path: `${base}/commits/:sha/cherry_pick`, guards: [...writer, commitChangeParams], handler: cherryPickCommit },
  { method: 'post', path: `${base}/commits/:sha/revert`, guards: [...writer, commitChangeParams], handler: revertCommit },

  { method: 'get', path: `${base}/compare`, guards: [...reader, compareParams], handler: showCompare },

  // Browsing (GitLab's repositories.rb); every GET answers HEAD too, with the same headers.
  { method: 'get', path: `${base}/tree`, guards: [...reader, treeParams], handler: showTree },
  { method: 'get', path: `${base}/blobs/:sha`, guards: reader, handler: showBlob },
  { method: 'get', path: `${base}/blobs/:sha/raw`, guards: reader, handler: showRawBlob },
  { method: 'get', path: `${base}/archive{.:format}`, guards: [...reader, archiveParams], handler: downloadArchive },
  { method: 'get', path: `${base}/contributors`, guards: [...reader, contributorParams], handler: showContributors },
  { method: 'get', path: `${base}/merge_base`, guards: [...reader, mergeBaseParams], handler: showMergeBase },
];

/**
 * The repository routes; on a secondary every read of the repository (each GET below
 * `/projects/:id/repository`) is answered from this site's copy only when it is current, else by
 * the primary (DESIGN, Reads and writes on a secondary), as git clones and fetches are.
 */
export function repositoryRoutes(reads: ReadRouting | null): readonly Route[] {
  return routes.map((route) => (route.method === 'get' && route.path.startsWith(`${base}/`) ? { ...route, handler: fromCurrentCopy(reads, 'repository', route.handler) } : route));
}

export { commitNoteRoutes } from './commit-notes.js';
export { gitHttpRouter } from './git-http.js';
export { gitLfsRouter } from './git-lfs.js';
