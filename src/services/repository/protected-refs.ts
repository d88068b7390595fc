import { inTransaction, type Db } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import {
  deleteProtectedBranchRow,
  deleteProtectedTagRow,
  findProtectedBranchRow,
  findProtectedTagRow,
  insertProtectedBranchRow,
  insertProtectedTagRow,
  listProtectedBranchRows,
  listProtectedTagRows,
  type ProtectedBranchRow,
  type ProtectedTagRow,
} from '../../db/tables/protected-refs.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { isValidBranchName } from '../../git/refs.js';
import { nowIso } from '../../storage/clock.js';
import { protectedRefLevels } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';

/** GitLab's default branch protection (default_branch_protection 2, "fully protected"): maintainers push and merge. */
export const DEFAULT_BRANCH_PROTECTION = { push: 40, merge: 40, unprotect: 40 } as const;

export interface BranchProtectionInput {
  readonly name: string;
  readonly pushAccessLevel?: number;
  readonly mergeAccessLevel?: number;
  readonly unprotectAccessLevel?: number;
}

/**
 * A protected name: a branch or tag name, where `*` may stand for any run of characters. Checked
 * as git checks a ref name with each `*` read as a letter, so a pattern never carries another
 * glob character or whitespace (what the pre-receive hook relies on).
 */
async function assertValidPattern(name: string): Promise<void> {
  if (!name || name.length > 255 || !(await isValidBranchName(name.replaceAll('*', 'x')))) throw badRequest('name is invalid');
}

export function listProtectedBranches(db: Db, project: ProjectRow, page: Page): Paged<ProtectedBranchRow> {
  return listProtectedBranchRows(db, project.id, page);
}

/** The protection named exactly `name` (a wildcard by its pattern); 404 `Not found` as GitLab's find_by!. */
export function getProtectedBranch(db: Db, project: ProjectRow, name: string): ProtectedBranchRow {
  const row = findProtectedBranchRow(db, project.id, name);
  if (!row) throw notFound();
  return row;
}

/** Protects a branch or wildcard (POST /protected_branches): 409 when that name is protected already; levels default to maintainers. */
export async function protectBranch(db: Db, project: ProjectRow, input: BranchProtectionInput): Promise<ProtectedBranchRow> {
  await assertValidPattern(input.name);
  return inTransaction(db, () => {
    if (findProtectedBranchRow(db, project.id, input.name)) throw conflict(`Protected branch '${input.name}' already exists`);
    const now = nowIso();
    insertProtectedBranchRow(db, {
      project_id: project.id,
      name: input.name,
      push_access_level: input.pushAccessLevel ?? DEFAULT_BRANCH_PROTECTION.push,
      merge_access_level: input.mergeAccessLevel ?? DEFAULT_BRANCH_PROTECTION.merge,
      unprotect_access_level: input.unprotectAccessLevel ?? DEFAULT_BRANCH_PROTECTION.unprotect,
      created_at: now,
      updated_at: now,
    });
    return findProtectedBranchRow(db, project.id, input.name)!;
  });
}

/**
 * PUT .../branches/:branch/protect (GitLab 10.x): the branch's own row, created when missing or
 * replaced with the developers_can_push / developers_can_merge levels asked for.
 */
export function setBranchProtection(db: Db, actor: Actor, project: ProjectRow, name: string, developersCanPush: boolean, developersCanMerge: boolean): void {
  inTransaction(db, () => {
    const existing = findProtectedBranchRow(db, project.id, name);
    if (existing && !protectedRefLevels(db, actor, project).reaches(existing.unprotect_access_level)) throw forbidden();
    if (existing) deleteProtectedBranchRow(db, existing.id);
    const now = nowIso();
    insertProtectedBranchRow(db, {
      project_id: project.id,
      name,
      push_access_level: developersCanPush ? 30 : 40,
      merge_access_level: developersCanMerge ? 30 : 40,
      unprotect_access_level: existing?.unprotect_access_level ?? DEFAULT_BRANCH_PROTECTION.unprotect,
      created_at: existing?.created_at ?? now,
      updated_at: now,
    });
  });
}

/**
 * Removes a protection by its exact name; `missing: 'fail'` answers 404 (DELETE
 * /protected_branches/:name), `'ignore'` does nothing (unprotect). The actor must reach the row's
 * unprotect_access_level (ee: 60 leaves it to admins), else 403.
 */
export function unprotectBranch(db: Db, actor: Actor, project: ProjectRow, name: string, missing: 'fail' | 'ignore', unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const row = findProtectedBranchRow(db, project.id, name);
    if (!row) {
      if (missing === 'fail') throw notFound();
      return;
    }
    if (!protectedRefLevels(db, actor, project).reaches(row.unprotect_access_level)) throw forbidden();
    assertUnmodifiedSince(unmodifiedSince, row.updated_at);
    deleteProtectedBranchRow(db, row.id);
  });
}

/**
 * The first push of a project's default branch protects it as GitLab's default branch
 * protection does (ProtectDefaultBranchService), unless a row of that name exists already.
 */
export function protectDefaultBranch(db: Db, projectId: number, branch: string): void {
  inTransaction(db, () => {
    if (findProtectedBranchRow(db, projectId, branch)) return;
    const now = nowIso();
    insertProtectedBranchRow(db, {
      project_id: projectId,
      name: branch,
      push_access_level: DEFAULT_BRANCH_PROTECTION.push,
      merge_access_level: DEFAULT_BRANCH_PROTECTION.merge,
      unprotect_access_level: DEFAULT_BRANCH_PROTECTION.unprotect,
      created_at: now,
      updated_at: now,
    });
  });
}

export function listProtectedTags(db: Db, project: ProjectRow, page: Page): Paged<ProtectedTagRow> {
  return listProtectedTagRows(db, project.id, page);
}

export function getProtectedTag(db: Db, project: ProjectRow, name: string): ProtectedTagRow {
  const row = findProtectedTagRow(db, project.id, name);
  if (!row) throw notFound();
  return row;
}

/** Protects a tag or wildcard (POST /protected_tags): 409 when protected already; creation defaults to maintainers. */
export async function protectTag(db: Db, project: ProjectRow, name: string, createAccessLevel: number | undefined): Promise<ProtectedTagRow> {
  await assertValidPattern(name);
  return inTransaction(db, () => {
    if (findProtectedTagRow(db, project.id, name)) throw conflict(`Protected tag '${name}' already exists`);
    const now = nowIso();
    insertProtectedTagRow(db, { project_id: project.id, name, create_access_level: createAccessLevel ?? 40, created_at: now, updated_at: now });
    return findProtectedTagRow(db, project.id, name)!;
  });
}

/** Removes a tag's protection row: 404 without one, 412 when it changed after `unmodifiedSince`. */
export function unprotectTag(db: Db, project: ProjectRow, name: string, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const row = findProtectedTagRow(db, project.id, name);
    if (!row) throw notFound();
    assertUnmodifiedSince(unmodifiedSince, row.updated_at);
    deleteProtectedTagRow(db, row.id);
  });
}
