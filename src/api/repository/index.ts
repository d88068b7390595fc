import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { Route } from '../routes.js';
import { addBranch, listProjectBranches, removeBranch, showBranch } from './branches.js';
import { addCommit, listProjectCommits, showCommit, showCommitDiff } from './commits.js';
import { cherryPickCommit, revertCommit } from './commit-changes.js';
import { showCompare } from './compare.js';
import { addFile, editFile, removeFile, showFile, showRawFile } from './files.js';

/**
 * The repository API (GITLAB-NOTES 5: Branches, Repository files, Commits; compare). Reads need
 * download_code (public and internal projects to whoever sees them, private ones to reporters and
 * up); writes need push_code (developers, not on an archived project) and commit through the
 * commit writer. GitLab's order (GITLAB-NOTES 1.4): 401, then 404 for a project not visible, then 403.
 */
const reader = [loadProject(), requireAbility('download_code')];
const writer = [signedIn, loadProject(), requireAbility('push_code')];
const base = '/projects/:id/repository';

export const repositoryRoutes: readonly Route[] = [
  { method: 'get', path: `${base}/branches`, guards: reader, handler: listProjectBranches },
  { method: 'get', path: `${base}/branches/:branch`, guards: reader, handler: showBranch },
  { method: 'post', path: `${base}/branches`, guards: writer, handler: addBranch },
  { method: 'delete', path: `${base}/branches/:branch`, guards: writer, handler: removeBranch },

  { method: 'get', path: `${base}/files/:file_path/raw`, guards: reader, handler: showRawFile },
  { method: 'get', path: `${base}/files/:file_path`, guards: reader, handler: showFile },
  { method: 'post', path: `${base}/files/:file_path`, guards: writer, handler: addFile },
  { method: 'put', path: `${base}/files/:file_path`, guards: writer, handler: editFile },
  { method: 'delete', path: `${base}/files/:file_path`, guards: writer, handler: removeFile },

  { method: 'get', path: `${base}/commits`, guards: reader, handler: listProjectCommits },
  { method: 'get', path: `${base}/commits/:sha`, guards: reader, handler: showCommit },
  { method: 'get', path: `${base}/commits/:sha/diff`, guards: reader, handler: showCommitDiff },
  { method: 'post', path: `${base}/commits`, guards: writer, handler: addCommit },
  { method: 'post', path: `${base}/commits/:sha/cherry_pick`, guards: writer, handler: cherryPickCommit },
  { method: 'post', path: `${base}/commits/:sha/revert`, guards: writer, handler: revertCommit },

  { method: 'get', path: `${base}/compare`, guards: reader, handler: showCompare },
];

export { gitHttpRouter } from './git-http.js';
export { gitLfsRouter } from './git-lfs.js';
