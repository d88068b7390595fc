import { loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { badgeCreateParams, badgeHandlers, badgeIdParam, badgeListParams, badgeUpdateParams } from './badges.js';
import { notificationHandlers, notificationParams } from './notification-settings.js';
import { setOwnStatus, showOwnStatus, showUserStatus, userStatusParams } from './user-status.js';

const projectBadges = badgeHandlers('project');
const groupBadges = badgeHandlers('group');
const globalNotifications = notificationHandlers('global');
const groupNotifications = notificationHandlers('group');
const projectNotifications = notificationHandlers('project');

/**
 * Settings people set (issue 17, item 6). Badges: whoever reads the project or group reads its
 * badges (anonymous callers too, GitLab's authenticate_non_get!); writes are signed in (401), then
 * the parameters (400), the source (404) and admin_project or admin_group (403). `render` reads its
 * urls before it authenticates, as GitLab's does, and comes before `:badge_id`. Notification
 * settings and the caller's status need a signed-in caller; anyone's status is public.
 */
export const settingsRoutes: readonly Route[] = [
  { method: 'get', path: '/projects/:id/badges', guards: [loadProject(), paged, badgeListParams], handler: projectBadges.list },
  { method: 'get', path: '/projects/:id/badges/render', guards: [badgeCreateParams, signedIn, loadProject(), requireAbility('admin_project')], handler: projectBadges.render },
  { method: 'get', path: '/projects/:id/badges/:badge_id', guards: [badgeIdParam, loadProject()], handler: projectBadges.show },
  { method: 'post', path: '/projects/:id/badges', guards: [signedIn, badgeCreateParams, loadProject(), requireAbility('admin_project')], handler: projectBadges.add },
  { method: 'put', path: '/projects/:id/badges/:badge_id', guards: [signedIn, badgeIdParam, badgeUpdateParams, loadProject(), requireAbility('admin_project')], handler: projectBadges.edit },
  { method: 'delete', path: '/projects/:id/badges/:badge_id', guards: [signedIn, badgeIdParam, loadProject(), requireAbility('admin_project')], handler: projectBadges.remove },

  { method: 'get', path: '/groups/:id/badges', guards: [loadGroup(), paged, badgeListParams], handler: groupBadges.list },
  { method: 'get', path: '/groups/:id/badges/render', guards: [badgeCreateParams, signedIn, loadGroup(), requireAbility('admin_group')], handler: groupBadges.render },
  { method: 'get', path: '/groups/:id/badges/:badge_id', guards: [badgeIdParam, loadGroup()], handler: groupBadges.show },
  { method: 'post', path: '/groups/:id/badges', guards: [signedIn, badgeCreateParams, loadGroup(), requireAbility('admin_group')], handler: groupBadges.add },
  { method: 'put', path: '/groups/:id/badges/:badge_id', guards: [signedIn, badgeIdParam, badgeUpdateParams, loadGroup(), requireAbility('admin_group')], handler: groupBadges.edit },
  { method: 'delete', path: '/groups/:id/badges/:badge_id', guards: [signedIn, badgeIdParam, loadGroup(), requireAbility('admin_group')], handler: groupBadges.remove },

  { method: 'get', path: '/notification_settings', guards: [signedIn], handler: globalNotifications.show },
  { method: 'put', path: '/notification_settings', guards: [signedIn, notificationParams], handler: globalNotifications.edit },
  { method: 'get', path: '/groups/:id/notification_settings', guards: [signedIn, loadGroup()], handler: groupNotifications.show },
  { method: 'put', path: '/groups/:id/notification_settings', guards: [signedIn, notificationParams, loadGroup()], handler: groupNotifications.edit },
  { method: 'get', path: '/projects/:id/notification_settings', guards: [signedIn, loadProject()], handler: projectNotifications.show },
  { method: 'put', path: '/projects/:id/notification_settings', guards: [signedIn, notificationParams, loadProject()], handler: projectNotifications.edit },

  { method: 'get', path: '/user/status', guards: [signedIn], handler: showOwnStatus },
  { method: 'put', path: '/user/status', guards: [signedIn, userStatusParams], handler: setOwnStatus },
  { method: 'get', path: '/users/:user_id/status', guards: [], handler: showUserStatus },
];
