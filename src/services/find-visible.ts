import type { Db } from '../db/connection.js';
import { findNamespaceById, findNamespaceByPath, type NamespaceRow } from '../db/tables/namespaces.js';
import { findProjectByFullPath, findProjectById, type ProjectRow } from '../db/tables/projects.js';
import { notFound } from '../errors.js';
import type { Actor } from './users/authentication.js';
import { can } from './permissions.js';

export type Ref = { id: number } | { path: string };

/**
 * The group a path names (numeric id or full path), or 404 `Group` when it is missing or the
 * actor may not see it: a private group is not found, never forbidden (GITLAB-NOTES 1.4).
 */
export function findVisibleGroup(db: Db, actor: Actor | null, ref: Ref): NamespaceRow {
  const group = 'id' in ref ? findNamespaceById(db, ref.id) : findNamespaceByPath(db, ref.path);
  if (!group || group.kind !== 'group' || !can(db, actor, 'read_group', group)) throw notFound('Group');
  return group;
}

/** The project a path names (numeric id or `namespace/path`), or 404 `Project` when missing or not visible. */
export function findVisibleProject(db: Db, actor: Actor | null, ref: Ref): ProjectRow {
  const project = 'id' in ref ? findProjectById(db, ref.id) : findProjectByFullPath(db, ref.path);
  if (!project || !can(db, actor, 'read_project', project)) throw notFound('Project');
  return project;
}
