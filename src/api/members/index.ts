import type { SourceKind } from '../../services/members/members.js';
import { loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged } from '../pagination.js';
import type { Guard, Route } from '../routes.js';
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

export const membersRoutes: readonly Route[] = [
  ...memberRoutes('group', loadGroup(), requireAbility('admin_group_member')),
  ...memberRoutes('project', loadProject(), requireAbility('admin_project_member')),
];
