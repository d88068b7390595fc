import type { SourceKind } from '../../services/members/members.js';
import { loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged } from '../pagination.js';
import type { Guard, Route } from '../routes.js';
import { addRequest, approvalParams, approveRequest, listRequests, removeRequest } from './access-requests.js';
import {
  addMemberTo,
  editMember,
  listDirectMembers,
  listInheritedMembers,
  membershipParams,
  memberQueryParams,
  removeMemberFrom,
  showMember,
  userIdParam,
} from './members.js';

/**
 * Group and project members, one family for both sources (GITLAB-NOTES 5 "Members"): the same six
 * routes, with the source's loader and the ability that manages its members. Every route needs a
 * signed-in caller (401); a bad parameter is a 400 before the source is looked up (404 when
 * invisible); whoever sees the source reads its members, and adding or changing one needs `manage`
 * (403: group owners, project maintainers, admins). Removing is also open to the member who
 * leaves, so that check stays in removeMember.
 */
function memberRoutes(kind: SourceKind, load: Guard, manage: Guard): Route[] {
  const base = `/${kind}s/:id/members`;
  const adding = membershipParams(kind, true);
  const changing = membershipParams(kind, false);
  return [
    { method: 'get', path: base, guards: [signedIn, memberQueryParams, load, paged], handler: listDirectMembers },
    { method: 'get', path: `${base}/all`, guards: [signedIn, memberQueryParams, load, paged], handler: listInheritedMembers },
    { method: 'get', path: `${base}/:user_id`, guards: [signedIn, userIdParam, load], handler: showMember },
    { method: 'post', path: base, guards: [signedIn, adding, load, manage], handler: addMemberTo(adding) },
    { method: 'put', path: `${base}/:user_id`, guards: [signedIn, userIdParam, changing, load, manage], handler: editMember(changing) },
    { method: 'delete', path: `${base}/:user_id`, guards: [signedIn, userIdParam, load, unmodifiedSince], handler: removeMemberFrom },
  ];
}

/**
 * Access requests to a group or project (GitLab's access_requests.rb): signed in (401); whoever
 * manages the members lists and approves (403); any signed-in user who sees the source and has no
 * membership asks (403 when it takes no requests or they already have access or asked); the
 * requester withdraws and a manager denies (the handler decides which).
 */
function accessRequestRoutes(kind: SourceKind, load: Guard, manage: Guard): Route[] {
  const base = `/${kind}s/:id/access_requests`;
  const approval = approvalParams(kind);
  return [
    { method: 'get', path: base, guards: [signedIn, load, manage, paged], handler: listRequests },
    { method: 'post', path: base, guards: [signedIn, load], handler: addRequest },
    { method: 'put', path: `${base}/:user_id/approve`, guards: [signedIn, userIdParam, approval, load, manage], handler: approveRequest(approval) },
    { method: 'delete', path: `${base}/:user_id`, guards: [signedIn, userIdParam, load], handler: removeRequest },
  ];
}

export const membersRoutes: readonly Route[] = [
  ...memberRoutes('group', loadGroup(), requireAbility('admin_group_member')),
  ...memberRoutes('project', loadProject(), requireAbility('admin_project_member')),
  ...accessRequestRoutes('group', loadGroup(), requireAbility('admin_group_member')),
  ...accessRequestRoutes('project', loadProject(), requireAbility('admin_project_member')),
];
