import { fromCurrentCopy, type ReadRouting } from '../geo/read-routing.js';
import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { linkCreateParams, linkUpdateParams, releaseCreateParams, releaseListParams, releaseUpdateParams } from './params.js';
import {
  addLink,
  addRelease,
  editLink,
  editRelease,
  linkIdParam,
  listLinks,
  listProjectReleases,
  redirectToLatestRelease,
  removeLink,
  removeRelease,
  showLink,
  showRelease,
} from './releases.js';

/**
 * Releases and their asset links (GitLab 17's releases.rb and release/links.rb). Whoever reads the
 * project lists them (read_release; the entity hides the code to those without download_code); one
 * release and the latest need download_code (GitLab's authorize_read_code!); developers write
 * (create_release), a protected tag's release only those who may create the tag (services/releases).
 */
const reader = [loadProject(), requireAbility('read_release')];
const codeReader = [...reader, requireAbility('download_code')];
const writer = [signedIn, loadProject(), requireAbility('create_release')];
const base = '/projects/:id/releases';
const one = `${base}/:tag_name`;

export function releasesRoutes(reads: ReadRouting | null): readonly Route[] {
  // The reads that show a release's commit read the repository: a secondary answers them from a current copy only.
  const fromRepository = (handler: Route['handler']) => fromCurrentCopy(reads, 'repository', handler);
  return [
    { method: 'get', path: base, guards: [...reader, releaseListParams, paged], handler: fromRepository(listProjectReleases) },
    { method: 'get', path: `${base}/permalink/latest`, guards: codeReader, handler: redirectToLatestRelease },
    { method: 'get', path: one, guards: codeReader, handler: fromRepository(showRelease) },
    { method: 'post', path: base, guards: [...writer, releaseCreateParams], handler: addRelease },
    { method: 'put', path: one, guards: [...writer, releaseUpdateParams], handler: editRelease },
    { method: 'delete', path: one, guards: writer, handler: removeRelease },

    { method: 'get', path: `${one}/assets/links`, guards: [...reader, paged], handler: listLinks },
    { method: 'get', path: `${one}/assets/links/:link_id`, guards: [...reader, linkIdParam], handler: showLink },
    { method: 'post', path: `${one}/assets/links`, guards: [...writer, linkCreateParams], handler: addLink },
    { method: 'put', path: `${one}/assets/links/:link_id`, guards: [...writer, linkIdParam, linkUpdateParams], handler: editLink },
    { method: 'delete', path: `${one}/assets/links/:link_id`, guards: [...writer, linkIdParam], handler: removeLink },
  ];
}
