import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteAccessRequest, findAccessRequest, insertAccessRequest, selectAccessRequests, type AccessRequestRow } from '../../db/tables/access-requests.js';
import type { MemberRow } from '../../db/tables/members.js';
import { forbidden, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { can, canRequestAccess } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { addMember, requestSource, type MemberSource } from './members.js';

/**
 * Access requests (GitLab's AccessRequestsFinder, RequestAccessService, ApproveAccessRequestService):
 * a signed-in user who is not a member asks to join a group or project that allows requests; its
 * group owners or project maintainers (and admins) list, approve or deny them; the requester may
 * withdraw. Approving makes a member at the level given (developer by default).
 */

/** Group owners, project maintainers, admins: who manage a source's members manage its requests (403 otherwise). */
function assertManagesMembers(db: Db, actor: Actor, source: MemberSource): void {
  const allowed = source.kind === 'group' ? can(db, actor, 'admin_group_member', source.group) : can(db, actor, 'admin_project_member', source.project);
  if (!allowed) throw forbidden();
}

/** A source's pending requests, oldest first; for those who manage its members (the route's guard). */
export function listAccessRequests(db: Db, source: MemberSource, page: Page): Paged<AccessRequestRow> {
  return selectAccessRequests(db, requestSource(source), page);
}

/**
 * The actor asks to join: 403 when the source does not take requests, when they already have
 * access through a membership (direct or inherited), or already asked (GitLab's request_access policy).
 */
export function requestAccess(db: Db, actor: Actor, source: MemberSource): AccessRequestRow {
  return inTransaction(db, () => {
    if (!canRequestAccess(db, actor, source) || findAccessRequest(db, requestSource(source), actor.user.id)) throw forbidden();
    insertAccessRequest(db, requestSource(source), actor.user.id, nowIso());
    return findAccessRequest(db, requestSource(source), actor.user.id)!;
  });
}

/** Approves a pending request (404 without one), for those who manage members (the route's guard): the requester becomes a member at `accessLevel`. */
export function approveAccessRequest(db: Db, actor: Actor, source: MemberSource, userId: number, accessLevel: number): MemberRow {
  return inTransaction(db, () => {
    if (!findAccessRequest(db, requestSource(source), userId)) throw notFound();
    return addMember(db, actor, source, userId, { accessLevel });
  });
}

/** Denies a request, or the requester withdraws it (404 without one; 403 to anyone else who does not manage members). */
export function removeAccessRequest(db: Db, actor: Actor, source: MemberSource, userId: number): void {
  inTransaction(db, () => {
    if (!findAccessRequest(db, requestSource(source), userId)) throw notFound();
    if (userId !== actor.user.id) assertManagesMembers(db, actor, source);
    deleteAccessRequest(db, requestSource(source), userId);
  });
}
