import type { Db } from '../db/connection.js';
import { groupAccessLevel, hasAccessBelowGroup, projectAccessLevel } from '../db/tables/access.js';
import type { Actor } from './authentication.js';
import { today } from './clock.js';

/** GitLab's access levels (GITLAB-NOTES 1.5); 40 is "maintainer" (named "master" in 10.x). */
export const ACCESS = { none: 0, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
export type AccessLevel = (typeof ACCESS)[keyof typeof ACCESS];

/** GitLab's visibility levels: private 0, internal 10, public 20. */
export const VISIBILITY = { private: 0, internal: 10, public: 20 } as const;
export type VisibilityName = keyof typeof VISIBILITY;
export const visibilityName = (level: number): VisibilityName => (level >= 20 ? 'public' : level >= 10 ? 'internal' : 'private');

/** The one home of permission rules; families add their abilities here. */
export function isAdmin(actor: Actor | null): boolean {
  return !!actor && actor.user.admin === 1;
}

/**
 * Whether a resource of this visibility is readable without any membership: public by anyone,
 * internal by any signed-in user who is not external (GitLab's external users see public only).
 */
export function visibleWithoutMembership(actor: Actor | null, visibilityLevel: number): boolean {
  if (visibilityLevel >= VISIBILITY.public) return true;
  return visibilityLevel >= VISIBILITY.internal && !!actor && actor.user.external === 0;
}

/** Namespaces: a user's own namespace (admins: every one), and any group the actor may read. */
export function canReadNamespace(db: Db, actor: Actor | null, namespace: GroupRef & { kind: string; owner_id: number | null }): boolean {
  if (namespace.kind === 'group') return canReadGroup(db, actor, namespace);
  if (!actor) return false;
  return isAdmin(actor) || namespace.owner_id === actor.user.id;
}

/** Top-level groups: admins, and users allowed to create groups (GITLAB-NOTES 2.1); subgroups need create_subgroup. */
export function canCreateTopLevelGroup(actor: Actor): boolean {
  return isAdmin(actor) || actor.user.can_create_group === 1;
}

export interface GroupRef {
  readonly id: number;
  readonly visibility_level: number;
}

export interface ProjectRef {
  readonly id: number;
  readonly namespace_id: number;
  readonly visibility_level: number;
  readonly archived: number;
}

/** The actor's access level on a group (0 for anonymous callers); admins count as owners. */
export function groupAccess(db: Db, actor: Actor | null, group: GroupRef): number {
  if (!actor) return ACCESS.none;
  if (isAdmin(actor)) return ACCESS.owner;
  return groupAccessLevel(db, actor.user.id, group.id, today());
}

/** The actor's access level on a project (0 for anonymous callers); admins count as owners. */
export function projectAccess(db: Db, actor: Actor | null, project: ProjectRef): number {
  if (!actor) return ACCESS.none;
  if (isAdmin(actor)) return ACCESS.owner;
  return projectAccessLevel(db, actor.user.id, project, today());
}

export function canReadGroup(db: Db, actor: Actor | null, group: GroupRef): boolean {
  if (visibleWithoutMembership(actor, group.visibility_level) || isAdmin(actor)) return true;
  if (!actor) return false;
  return groupAccess(db, actor, group) > ACCESS.none || hasAccessBelowGroup(db, actor.user.id, group.id, today());
}

export function canReadProject(db: Db, actor: Actor | null, project: ProjectRef): boolean {
  return visibleWithoutMembership(actor, project.visibility_level) || projectAccess(db, actor, project) >= ACCESS.guest;
}

/**
 * Forking copies the code, so it needs what downloading does (GITLAB-NOTES 2.2): a project anyone
 * signed in may read, or reporter access (guests of a private project may not fork it).
 */
export function canForkProject(db: Db, actor: Actor, project: ProjectRef): boolean {
  return visibleWithoutMembership(actor, project.visibility_level) || projectAccess(db, actor, project) >= ACCESS.reporter;
}

/** A user may create projects in their own namespace, admins in any; a group needs create_projects there. */
export function canCreateProjectsIn(db: Db, actor: Actor, namespace: GroupRef & { kind: string; owner_id: number | null }): boolean {
  if (namespace.kind === 'group') return canGroup(db, actor, 'create_projects', namespace);
  return isAdmin(actor) || namespace.owner_id === actor.user.id;
}

/** What may be done to a group, and the access level each needs (GITLAB-NOTES 2.1). */
export const GROUP_ABILITIES = {
  create_projects: ACCESS.maintainer,
  admin_members: ACCESS.owner,
  create_subgroup: ACCESS.owner,
  update: ACCESS.owner,
  delete: ACCESS.owner,
  ldap_sync: ACCESS.owner,
} as const;
export type GroupAbility = keyof typeof GROUP_ABILITIES;

/** What may be done to a project, and the access level each needs (GITLAB-NOTES 2.2). */
export const PROJECT_ABILITIES = {
  push: ACCESS.developer,
  update: ACCESS.maintainer,
  admin_members: ACCESS.maintainer,
  share: ACCESS.maintainer,
  admin_hooks: ACCESS.maintainer,
  upload: ACCESS.guest,
  rename: ACCESS.owner,
  change_visibility: ACCESS.owner,
  archive: ACCESS.owner,
  delete: ACCESS.owner,
} as const;
export type ProjectAbility = keyof typeof PROJECT_ABILITIES;

/** Abilities that change a project, refused on an archived one (it is read-only). */
const WRITES_TO_CONTENT: ReadonlySet<ProjectAbility> = new Set(['push', 'upload']);

export function canGroup(db: Db, actor: Actor | null, ability: GroupAbility, group: GroupRef): boolean {
  return groupAccess(db, actor, group) >= GROUP_ABILITIES[ability];
}

export function canProject(db: Db, actor: Actor | null, ability: ProjectAbility, project: ProjectRef): boolean {
  if (project.archived && WRITES_TO_CONTENT.has(ability)) return false;
  return projectAccess(db, actor, project) >= PROJECT_ABILITIES[ability];
}
