import type { LdapConfig } from '../../../config.js';
import { inTransaction, type Db } from '../../../db/connection.js';
import { groupIdsLinkedTo, ldapLinksOf } from '../../../db/tables/ldap-group-links.js';
import {
  deleteMembership,
  identitiesOfProvider,
  insertLdapMembership,
  membershipsOf,
  stampLdapSynced,
  updateLdapMembership,
  type GroupMembership,
  type LdapIdentity,
} from '../../../db/tables/ldap-sync.js';
import { findNamespaceById } from '../../../db/tables/namespaces.js';
import { updateUser } from '../../../db/tables/users.js';
import { nowIso } from '../../../storage/clock.js';
import { ACCESS } from '../../../db/levels.js';
import { connectDirectory, type LdapDirectory } from './client.js';
import { normalizeDn } from './dn.js';

/** The provider name of the configured LDAP server, GitLab's default; links under other providers are not synced. */
export const LDAP_PROVIDER = 'ldapmain';

export interface LdapSyncReport {
  groups: number;
  added: number;
  updated: number;
  removed: number;
  blocked: number;
  unblocked: number;
}

/** What the directory says a group's LDAP members should be: user id -> access level. */
interface GroupPlan {
  readonly groupId: number;
  readonly desired: Map<number, number>;
}

/**
 * Synchronises with the directory: the group `groupId`, or every group linked under ldapmain
 * (the hourly job and the CLI). A user whose identity DN is a member of a linked LDAP group
 * (a cn link) or matches a linked filter (a filter link) holds the highest group_access of the group's links; a membership LDAP granted is taken back
 * once the user is in none of them, and members added by hand are left alone. A user whose DN
 * is gone from the directory is blocked as `ldap_blocked`, and unblocked when it comes back
 * (GitLab's LDAP access check). A group sync checks the users it touches, a full sync every
 * ldapmain user. Everything is read first and written in one transaction, so a directory
 * outage (503 `unavailable`) changes nothing.
 */
export async function syncLdap(db: Db, config: LdapConfig, scope: { groupId?: number } = {}): Promise<LdapSyncReport> {
  const groupIds = scope.groupId === undefined ? groupIdsLinkedTo(db, LDAP_PROVIDER) : [scope.groupId];
  const identities = identitiesOfProvider(db, LDAP_PROVIDER);
  const directory = await connectDirectory(config);
  const plans: GroupPlan[] = [];
  const present = new Map<number, boolean>();
  try {
    const userByDn = new Map(identities.map((identity) => [normalizeDn(identity.extern_uid), identity.user_id]));
    for (const groupId of groupIds) plans.push({ groupId, desired: await desiredMembers(db, directory, groupId, userByDn) });
    const involved = new Set(plans.flatMap((plan) => [...plan.desired.keys()]));
    for (const groupId of groupIds) for (const member of membershipsOf(db, groupId)) if (member.ldap) involved.add(member.user_id);
    const toCheck = scope.groupId === undefined ? identities : identities.filter((identity) => involved.has(identity.user_id));
    for (const identity of toCheck) present.set(identity.user_id, await directory.entryExists(identity.extern_uid));
  } finally {
    await directory.close();
  }
  return inTransaction(db, () => applySync(db, plans, present));
}

async function desiredMembers(db: Db, directory: LdapDirectory, groupId: number, userByDn: Map<string, number>): Promise<Map<number, number>> {
  const desired = new Map<number, number>();
  for (const link of ldapLinksOf(db, groupId)) {
    if (link.provider !== LDAP_PROVIDER) continue;
    const dns = link.filter === null ? await directory.groupMemberDns(link.cn) : await directory.filterMemberDns(link.filter);
    for (const dn of dns) {
      const userId = userByDn.get(normalizeDn(dn));
      if (userId !== undefined) desired.set(userId, Math.max(desired.get(userId) ?? 0, link.group_access));
    }
  }
  return desired;
}

/** Writes what was read; rows changed meanwhile (a deleted user or group) are re-read here and skipped. */
function applySync(db: Db, plans: readonly GroupPlan[], present: ReadonlyMap<number, boolean>): LdapSyncReport {
  const now = nowIso();
  const report: LdapSyncReport = { groups: 0, added: 0, updated: 0, removed: 0, blocked: 0, unblocked: 0 };
  const users = new Map<number, LdapIdentity>(identitiesOfProvider(db, LDAP_PROVIDER).map((identity) => [identity.user_id, identity]));
  for (const [userId, exists] of present) {
    const user = users.get(userId);
    if (!user) continue;
    // GitLab's state machine: only an active user is LDAP-blocked, only an LDAP block is lifted here.
    if (!exists && user.state === 'active') {
      updateUser(db, userId, { state: 'ldap_blocked', updated_at: now });
      report.blocked++;
    } else if (exists && user.state === 'ldap_blocked') {
      updateUser(db, userId, { state: 'active', updated_at: now });
      report.unblocked++;
    }
  }
  for (const plan of plans) {
    const group = findNamespaceById(db, plan.groupId);
    if (!group || group.kind !== 'group') continue;
    applyGroupPlan(db, plan, users, now, report);
    stampLdapSynced(db, plan.groupId, now);
    report.groups++;
  }
  return report;
}

/**
 * Grants and raises first, then lowers and removes, so that the group's last owner is never
 * demoted or removed by a sync (GitLab's GroupSync skips the last owner too).
 */
function applyGroupPlan(db: Db, plan: GroupPlan, users: ReadonlyMap<number, LdapIdentity>, now: string, report: LdapSyncReport): void {
  const members = membershipsOf(db, plan.groupId);
  const byUser = new Map(members.map((member) => [member.user_id, member]));
  for (const [userId, level] of plan.desired) {
    if (!users.has(userId) || byUser.has(userId)) continue;
    insertLdapMembership(db, plan.groupId, userId, level, now);
    report.added++;
  }
  const lowering: GroupMembership[] = [];
  for (const member of members) {
    const level = plan.desired.get(member.user_id);
    if (level === undefined) {
      if (member.ldap) lowering.push(member);
    } else if (level > member.access_level || (level === member.access_level && !member.ldap)) {
      updateLdapMembership(db, member.id, level, now);
      report.updated++;
    } else if (level < member.access_level) {
      lowering.push(member);
    }
  }
  let owners = membershipsOf(db, plan.groupId).filter((member) => member.access_level === ACCESS.owner).length;
  for (const member of lowering) {
    if (member.access_level === ACCESS.owner) {
      if (owners <= 1) continue;
      owners--;
    }
    const level = plan.desired.get(member.user_id);
    if (level === undefined) {
      deleteMembership(db, member.id);
      report.removed++;
    } else {
      updateLdapMembership(db, member.id, level, now);
      report.updated++;
    }
  }
}
