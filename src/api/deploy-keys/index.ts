import { admin, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { addKey, deployKeyEditParams, deployKeyIdParam, deployKeyListParams, deployKeyParams, editKey, enableKey, listAllDeployKeys, listKeys, removeKey, showKey } from './deploy-keys.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

/**
 * Deploy keys (GitLab's lib/api/deploy_keys.rb): every project route needs admin_project
 * (maintainers; 401, then 404 for a project not visible, then 403, before parameters, `:key_id`
 * included, are read, as GitLab authorizes in a `before` block); the site-wide list is for admins. Deploy keys are SSH
 * keys: the git smart HTTP endpoints do not take them, as GitLab's do not.
 */
const maintainer = [signedIn, loadProject(), requireAbility('admin_project')];
const base = '/projects/:id/deploy_keys';

export const deployKeysRoutes: readonly Route[] = [
  { method: 'get', path: '/deploy_keys', guards: [admin, deployKeyListParams, paged], handler: listAllDeployKeys },
  { method: 'get', path: base, guards: [...maintainer, paged], handler: listKeys },
  { method: 'get', path: `${base}/:key_id`, guards: [...maintainer, deployKeyIdParam], handler: showKey },
  { method: 'post', path: base, guards: [...maintainer, deployKeyParams], handler: addKey },
  { method: 'put', path: `${base}/:key_id`, guards: [...maintainer, deployKeyIdParam, deployKeyEditParams], handler: editKey },
  { method: 'post', path: `${base}/:key_id/enable`, guards: [...maintainer, deployKeyIdParam], handler: enableKey },
  { method: 'delete', path: `${base}/:key_id`, guards: [...maintainer, deployKeyIdParam, unmodifiedSince], handler: removeKey },
];
