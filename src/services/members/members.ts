import { deleteAccessRequest, type RequestSource } from '../../db/tables/access-requests.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  countOtherGroupOwners,
  deleteMember,
  findMember,
  insertMember,
  membershipLockedAbove,
  selectMembers,
  selectMembershipUpdatedAt,
  selectMembersWithInherited,
  updateMember,
  type MemberRow,
  type MemberTable,
} from '../../db/tables/members.js';
import { findNamespaceById, type NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, conflict, forbidden, notFound } from '../../errors.js';
import type { Actor } from '../users/authentication.js';
import { nowIso, today } from '../../storage/clock.js';
import { can } from '../permissions.js';
import { ACCESS } from '../../db/levels.js';
import { getUser } from '../users/users.js';
import { recordMembership, type EventScope } from '../issuables/record-events.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';

/** What members belong to: a group or a project, each with its own table and rules. */
export type MemberSource = { kind: 'group'; group: NamespaceRow } | { kind: 'project'; project: ProjectRow };
export type SourceKind = MemberSource['kind'];

export const MEMBER_TABLES: Record<SourceKind, MemberTable> = {
  group: { table: 'group_members', column: 'namespace_id' },
  project: { table: 'project_members', column: 'project_id' },
};

/** The access levels a membership may hold: owner exists for groups only (GITLAB-NOTES 1.5). */
export const MEMBER_LEVELS: Record<SourceKind, readonly number[]> = {
  group: [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer, ACCESS.owner],
  project: [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer],
};

/** The source as the access_requests table names it. */
export const requestSource = (source: MemberSource): RequestSource => (source.kind === 'group' ? { group_id: source.group.id } : { project_id: source.project.id });

const sourceId = (source: MemberSource) => (source.kind === 'group' ? source.group.id : source.project.id);

/**
 * Removing someone else: group owners, project maintainers, admins; 403 otherwise. Adding and
 * changing members need the same, which their routes check (admin_group_member, admin_project_member).
 */
function assertMayAdminMembers(db: Db, actor: Actor, source: MemberSource): void {
  const allowed = source.kind === 'group' ? can(db, actor, 'admin_group_member', source.group) : can(db, actor, 'admin_project_member', source.project);
  if (!allowed) throw forbidden();
}

/** The direct members of a source, optionally matching `query` in name or username. */
export function listMembers(db: Db, source: MemberSource, query: string | undefined, page: Page): Paged<MemberRow> {
  return selectMembers(db, MEMBER_TABLES[source.kind], sourceId(source), query, page);
}

/** Direct and inherited members (ancestor groups; a project's group chain), each user at their highest level. */
export function listAllMembers(db: Db, source: MemberSource, query: string | undefined, page: Page): Paged<MemberRow> {
  const scope =
    source.kind === 'group'
      ? { kind: 'group' as const, groupId: source.group.id }
      : { kind: 'project' as const, projectId: source.project.id, namespaceId: source.project.namespace_id };
  return selectMembersWithInherited(db, scope, query, page);
}

/** One direct member, or 404 `Member`. */
export function getMember(db: Db, source: MemberSource, userId: number): MemberRow {
  const member = findMember(db, MEMBER_TABLES[source.kind], sourceId(source), userId);
  if (!member) throw notFound('Member');
  return member;
}

export interface MembershipInput {
  accessLevel: number;
  /** undefined keeps the current expiry on update; null clears it. */
  expiresAt?: string | null;
}

/**
 * Adds a member to a source whose members the actor administers: 409 when the user already is
 * one, 404 `User` when there is no such user, and 405 for a project whose group locks membership
 * (EE answers `not_allowed!` then). The member's `joined` event goes with the row.
 */
export function addMember(db: Db, actor: Actor, source: MemberSource, userId: number, input: MembershipInput): MemberRow {
  return inTransaction(db, () => {
    const table = MEMBER_TABLES[source.kind];
    if (findMember(db, table, sourceId(source), userId)) throw conflict('Member already exists');
    getUser(db, userId);
    if (source.kind === 'project' && membershipLockedAbove(db, source.project.namespace_id)) throw new AppError('not_allowed');
    const now = nowIso();
    insertMember(db, table, { sourceId: sourceId(source), userId, accessLevel: input.accessLevel, expiresAt: input.expiresAt ?? null, createdById: actor.user.id, now });
    // A member has nothing left to request (GitLab turns the requester row into the member).
    deleteAccessRequest(db, requestSource(source), userId);
    if (!ownsProjectNamespace(db, source, userId)) recordMembership(db, userId, eventScope(source), 'joined', now);
    return findMember(db, table, sourceId(source), userId)!;
  });
}

/** Changes a member's level or expiry in a source whose members the actor administers; a group's last owner may not be demoted. */
export function changeMember(db: Db, source: MemberSource, userId: number, input: MembershipInput): MemberRow {
  return inTransaction(db, () => {
    const member = getMember(db, source, userId);
    if (input.accessLevel < ACCESS.owner) assertNotLastOwner(db, source, member);
    const columns = { access_level: input.accessLevel, expires_at: input.expiresAt === undefined ? member.expires_at : input.expiresAt };
    updateMember(db, MEMBER_TABLES[source.kind], sourceId(source), userId, columns, nowIso());
    return { ...member, ...columns };
  });
}

/**
 * Removes a member: those who administer members, or the member leaving; never a group's last owner
 * (403); 412 when the membership changed after `unmodifiedSince`. Writes the member's `left` event.
 */
export function removeMember(db: Db, actor: Actor, source: MemberSource, userId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const member = getMember(db, source, userId);
    if (userId !== actor.user.id) assertMayAdminMembers(db, actor, source);
    assertUnmodifiedSince(unmodifiedSince, selectMembershipUpdatedAt(db, MEMBER_TABLES[source.kind], sourceId(source), userId) ?? null);
    assertNotLastOwner(db, source, member);
    deleteMember(db, MEMBER_TABLES[source.kind], sourceId(source), userId);
    if (!ownsProjectNamespace(db, source, userId)) recordMembership(db, userId, eventScope(source), 'left');
  });
}

const eventScope = (source: MemberSource): EventScope => (source.kind === 'group' ? { groupId: source.group.id } : { projectId: source.project.id });

/** The owner of a personal project joins and leaves it with no event, as GitLab's ProjectMember hooks skip the owner. */
function ownsProjectNamespace(db: Db, source: MemberSource, userId: number): boolean {
  if (source.kind !== 'project') return false;
  const namespace = findNamespaceById(db, source.project.namespace_id);
  return namespace?.kind === 'user' && namespace.owner_id === userId;
}

/**
 * A group always keeps an owner: an owner may not be removed or demoted when nobody else owns the
 * group, directly or through an ancestor (GitLab's last_owner rule answers 403).
 */
function assertNotLastOwner(db: Db, source: MemberSource, member: MemberRow): void {
  if (source.kind !== 'group' || member.access_level !== ACCESS.owner) return;
  if (countOtherGroupOwners(db, source.group.id, member.id, today()) === 0) throw forbidden('A group must keep at least one owner');
}
