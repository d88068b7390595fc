import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** Whose rules: a project's (approval_project_rules) or one merge request's (approval_merge_request_rules). */
export type RuleOwner = 'project' | 'merge_request';
export type RuleType = 'regular' | 'any_approver';

/** What both kinds of rule hold. */
export interface ApprovalRuleRow {
  id: number;
  name: string;
  approvals_required: number;
  rule_type: RuleType;
  created_at: string;
  updated_at: string;
}

export interface ProjectApprovalRuleRow extends ApprovalRuleRow {
  project_id: number;
  applies_to_all_protected_branches: number;
}

export interface MergeRequestApprovalRuleRow extends ApprovalRuleRow {
  merge_request_id: number;
  approval_project_rule_id: number | null;
}

/** The table and owner column of each kind, and its member tables. */
const TABLES = {
  project: { rules: 'approval_project_rules', owner: 'project_id', users: 'approval_project_rules_users', groups: 'approval_project_rules_groups' },
  merge_request: { rules: 'approval_merge_request_rules', owner: 'merge_request_id', users: 'approval_merge_request_rules_users', groups: 'approval_merge_request_rules_groups' },
} as const;

type RowOf<K extends RuleOwner> = K extends 'project' ? ProjectApprovalRuleRow : MergeRequestApprovalRuleRow;

const IDS = (param: string) => `(SELECT value FROM json_each(${param}))`;

/** One page of an owner's rules, oldest first (GitLab lists them by id). */
export function listRuleRows<K extends RuleOwner>(db: Db, kind: K, ownerId: number, page: Page): Paged<RowOf<K>> {
  const t = TABLES[kind];
  return selectPage<RowOf<K>>(db, '*', `FROM ${t.rules} WHERE ${t.owner} = ?`, 'id', [ownerId], page);
}

/** Every rule of an owner, oldest first: what an approval state reads. */
export function allRuleRows<K extends RuleOwner>(db: Db, kind: K, ownerId: number): RowOf<K>[] {
  const t = TABLES[kind];
  return prepare(db, `SELECT * FROM ${t.rules} WHERE ${t.owner} = ? ORDER BY id`).all(ownerId) as RowOf<K>[];
}

export function findRuleRow<K extends RuleOwner>(db: Db, kind: K, ownerId: number, id: number): RowOf<K> | undefined {
  const t = TABLES[kind];
  return prepare(db, `SELECT * FROM ${t.rules} WHERE ${t.owner} = ? AND id = ?`).get(ownerId, id) as RowOf<K> | undefined;
}

/** Another rule of the owner with this name or (for any_approver) this type, besides `exceptId`: the uniqueness GitLab validates. */
export function findClashingRule(db: Db, kind: RuleOwner, ownerId: number, column: 'name' | 'rule_type', value: string, exceptId: number | null): boolean {
  const t = TABLES[kind];
  return prepare(db, `SELECT 1 FROM ${t.rules} WHERE ${t.owner} = ? AND ${column} = ? AND id IS NOT ?`).get(ownerId, value, exceptId) !== undefined;
}

export function insertRuleRow(db: Db, kind: RuleOwner, row: Record<string, string | number | null>): number {
  const t = TABLES[kind];
  const names = Object.keys(row);
  return Number(prepare(db, `INSERT INTO ${t.rules} (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`).run(row).lastInsertRowid);
}

export function updateRuleRow(db: Db, kind: RuleOwner, id: number, columns: Record<string, string | number | null>): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE ${TABLES[kind].rules} SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

export function deleteRuleRow(db: Db, kind: RuleOwner, id: number): void {
  prepare(db, `DELETE FROM ${TABLES[kind].rules} WHERE id = ?`).run(id);
}

/** The ids a member table lists for each of the rules, in insertion order. */
function membersOf(db: Db, table: string, column: string, ruleIds: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>(ruleIds.map((id) => [id, []]));
  if (!ruleIds.length) return out;
  const rows = prepare(db, `SELECT rule_id, ${column} AS member FROM ${table} WHERE rule_id IN ${IDS('?')} ORDER BY id`).all(JSON.stringify(ruleIds)) as { rule_id: number; member: number }[];
  for (const row of rows) out.get(row.rule_id)?.push(row.member);
  return out;
}

function replaceMembers(db: Db, table: string, column: string, ruleId: number, ids: readonly number[]): void {
  prepare(db, `DELETE FROM ${table} WHERE rule_id = ?`).run(ruleId);
  const insert = prepare(db, `INSERT INTO ${table} (rule_id, ${column}) VALUES (?, ?)`);
  for (const id of new Set(ids)) insert.run(ruleId, id);
}

export const ruleUserIds = (db: Db, kind: RuleOwner, ruleIds: readonly number[]) => membersOf(db, TABLES[kind].users, 'user_id', ruleIds);
export const ruleGroupIds = (db: Db, kind: RuleOwner, ruleIds: readonly number[]) => membersOf(db, TABLES[kind].groups, 'group_id', ruleIds);
export const ruleProtectedBranchIds = (db: Db, ruleIds: readonly number[]) => membersOf(db, 'approval_project_rules_protected_branches', 'protected_branch_id', ruleIds);

export const replaceRuleUsers = (db: Db, kind: RuleOwner, ruleId: number, ids: readonly number[]) => replaceMembers(db, TABLES[kind].users, 'user_id', ruleId, ids);
export const replaceRuleGroups = (db: Db, kind: RuleOwner, ruleId: number, ids: readonly number[]) => replaceMembers(db, TABLES[kind].groups, 'group_id', ruleId, ids);
export const replaceRuleProtectedBranches = (db: Db, ruleId: number, ids: readonly number[]) =>
  replaceMembers(db, 'approval_project_rules_protected_branches', 'protected_branch_id', ruleId, ids);

/** The direct members of each group (what a rule's group contributes to its approvers). */
export function groupMembersOf(db: Db, groupIds: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>(groupIds.map((id) => [id, []]));
  if (!groupIds.length) return out;
  const rows = prepare(db, `SELECT namespace_id, user_id FROM group_members WHERE namespace_id IN ${IDS('?')} ORDER BY user_id`).all(JSON.stringify(groupIds)) as {
    namespace_id: number;
    user_id: number;
  }[];
  for (const row of rows) out.get(row.namespace_id)?.push(row.user_id);
  return out;
}
