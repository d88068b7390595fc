import { customAttributesRoutes } from '../custom-attributes.js';
import { admin, loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import { avatarChange } from '../middleware/value-guards.js';
import type { Route } from '../routes.js';
import { groupProjectsScope, listGroupProjects, transferProjectToGroup } from './group-projects.js';
import { addGroup, groupCreateParams, editGroup, groupEditParams, groupAttributes, listChildGroups, listGroupDescendants, groupListParams, removeGroup, searchGroups, showGroup } from './groups.js';
import { groupTransferParams, namespaceExistsParams, showNamespaceExists, transferGroupHandler } from './transfer.js';
import {
  addLink,
  ldapConfigured,
  ldapGroupLinkParams,
  ldapGroupLinkQueryParams,
  listLinks,
  removeLinkByCn,
  removeLinkByProviderAndCn,
  removeLinkByQuery,
  syncGroupWithLdap,
} from './ldap-links.js';
import { listMyNamespaces, namespaceListParams, showNamespace } from './namespaces.js';
import { projectListParams } from '../projects/list-response.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { addGroupShare, groupShareParams, removeGroupShare, sharedWithGroupId } from './shares.js';

/** LDAP sync and links are GitLab's admin_group (the `ldap_sync` ability): owners and administrators. */
const groupAdmin = [signedIn, loadGroup(), requireAbility('admin_group')];

/**
 * Groups (SPEC: Groups; GITLAB-NOTES 2.1), their projects, LDAP links and the namespaces. Anonymous
 * reads see public groups. GitLab's order: 401, then a bad parameter (400, the `*Params` guards),
 * then a group that is missing or invisible (404), then the ability (403).
 */
export const groupsRoutes: readonly Route[] = [
  { method: 'get', path: '/groups', guards: [groupListParams, paged], handler: searchGroups },
  { method: 'get', path: '/groups/:id/subgroups', guards: [groupListParams, loadGroup(), paged], handler: listChildGroups },
  { method: 'get', path: '/groups/:id/descendant_groups', guards: [groupListParams, loadGroup(), paged], handler: listGroupDescendants },
  { method: 'get', path: '/groups/:id', guards: [loadGroup()], handler: showGroup },
  { method: 'post', path: '/groups', guards: [signedIn, groupCreateParams], handler: addGroup },
  { method: 'put', path: '/groups/:id', guards: [signedIn, avatarChange, groupEditParams, loadGroup(), requireAbility('admin_group')], handler: editGroup },
  { method: 'delete', path: '/groups/:id', guards: [signedIn, loadGroup(), requireAbility('remove_group'), unmodifiedSince], handler: removeGroup },

  { method: 'post', path: '/groups/:id/share', guards: [signedIn, groupShareParams, loadGroup(), requireAbility('admin_group')], handler: addGroupShare },
  { method: 'delete', path: '/groups/:id/share/:group_id', guards: [signedIn, sharedWithGroupId, loadGroup(), requireAbility('admin_group'), unmodifiedSince], handler: removeGroupShare },

  { method: 'get', path: '/groups/:id/projects', guards: [loadGroup(), projectListParams, groupProjectsScope], handler: listGroupProjects },
  { method: 'post', path: '/groups/:id/projects/:project_id', guards: [admin, loadGroup(), loadProject('project_id')], handler: transferProjectToGroup },
  { method: 'post', path: '/groups/:id/transfer', guards: [...groupAdmin, groupTransferParams], handler: transferGroupHandler(201) },
  { method: 'put', path: '/groups/:id/transfer', guards: [...groupAdmin, groupTransferParams], handler: transferGroupHandler(200) },

  { method: 'post', path: '/groups/:id/ldap_sync', guards: [signedIn, ldapConfigured, loadGroup(), requireAbility('admin_group')], handler: syncGroupWithLdap },
  { method: 'get', path: '/groups/:id/ldap_group_links', guards: groupAdmin, handler: listLinks },
  { method: 'post', path: '/groups/:id/ldap_group_links', guards: [signedIn, ldapGroupLinkParams, loadGroup(), requireAbility('admin_group')], handler: addLink },
  { method: 'delete', path: '/groups/:id/ldap_group_links', guards: [signedIn, ldapGroupLinkQueryParams, loadGroup(), requireAbility('admin_group')], handler: removeLinkByQuery },
  { method: 'delete', path: '/groups/:id/ldap_group_links/:cn', guards: groupAdmin, handler: removeLinkByCn },
  { method: 'delete', path: '/groups/:id/ldap_group_links/:provider/:cn', guards: groupAdmin, handler: removeLinkByProviderAndCn },

  { method: 'get', path: '/namespaces', guards: [signedIn, namespaceListParams, paged], handler: listMyNamespaces },
  { method: 'get', path: '/namespaces/:id', guards: [signedIn], handler: showNamespace },
  { method: 'get', path: '/namespaces/:id/exists', guards: [signedIn, namespaceExistsParams], handler: showNamespaceExists },

  ...customAttributesRoutes('/groups/:id', [loadGroup()], groupAttributes),
];

export { groupAvatarRouter } from './avatar.js';
