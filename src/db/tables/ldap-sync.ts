import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A user who signs in through an LDAP provider: the DN is the identity's extern_uid. */
export interface LdapIdentity {
  user_id: number;
  extern_uid: string;
  state: 'active' | 'blocked' | 'ldap_blocked';
}

export interface GroupMembership {
  id: number;
  user_id: number;
  access_level: number;
  /** 1 when LDAP sync granted it (and may take it back). */
  ldap: number;
}

export function identitiesOfProvider(db: Db, provider: string): LdapIdentity[] {
  return prepare(db, 'SELECT i.user_id, i.extern_uid, u.state FROM identities i JOIN users u ON u.id = i.user_id WHERE i.provider = ? ORDER BY i.user_id').all(
    provider,
  ) as LdapIdentity[];
}

export function membershipsOf(db: Db, namespaceId: number): GroupMembership[] {
  return prepare(db, 'SELECT id, user_id, access_level, ldap FROM group_members WHERE namespace_id = ? ORDER BY id').all(namespaceId) as GroupMembership[];
}

export function insertLdapMembership(db: Db, namespaceId: number, userId: number, accessLevel: number, now: string): void {
  prepare(
    db,
    'INSERT INTO group_members (namespace_id, user_id, access_level, ldap, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)',
  ).run(namespaceId, userId, accessLevel, now, now);
}

/** Hands a membership to LDAP at this level; a member added by hand becomes LDAP-managed, as in GitLab. */
export function updateLdapMembership(db: Db, membershipId: number, accessLevel: number, now: string): void {
  prepare(db, 'UPDATE group_members SET access_level = ?, ldap = 1, updated_at = ? WHERE id = ?').run(accessLevel, now, membershipId);
}

export function deleteMembership(db: Db, membershipId: number): void {
  prepare(db, 'DELETE FROM group_members WHERE id = ?').run(membershipId);
}

export function stampLdapSynced(db: Db, namespaceId: number, now: string): void {
  prepare(db, 'UPDATE namespaces SET ldap_synced_at = ? WHERE id = ?').run(now, namespaceId);
}
