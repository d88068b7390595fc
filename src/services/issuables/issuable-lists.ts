import type { Db } from '../../db/connection.js';
import { groupTreeIds } from '../../db/tables/groups.js';
import { findLabelsByTitles, labelIdsWithTitle } from '../../db/tables/labels.js';
import { milestoneIdsWithTitle, milestoneIdsWithTitleAnywhere } from '../../db/tables/milestones.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { SqlCondition } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { textMatch } from '../search/terms.js';
import { projectLabelScope, projectMilestoneScope } from './scopes.js';

/** `None` (nothing set) and `Any` (something set), the two special values of GitLab's issuable filters. */
export type Presence = 'none' | 'any';

/** Which issues or merge requests a list covers: one project's, the projects of a group and its subgroups, or every project the caller reads. */
export type IssuableListSource = { readonly project: ProjectRow } | { readonly group: NamespaceRow } | { readonly everywhere: true };

/** The filters issue and merge request lists share (GitLab's IssuableFinder params), already read and validated. */
export interface IssuableFilters {
  /** Every title must be on the issue or merge request; or none at all, or any. */
  readonly labels?: readonly string[] | Presence;
  readonly milestone?: string | Presence;
  readonly iids?: readonly number[];
  readonly scope?: 'created_by_me' | 'assigned_to_me' | 'all';
  readonly authorId?: number;
  readonly assigneeId?: number | Presence;
  readonly myReactionEmoji?: string | Presence;
  /** Case-insensitive substring of the title or the description. */
  readonly search?: string;
  /** GET /search: GitLab's fuzzy search of the title and description, through the table's text index (services/search/terms.ts). */
  readonly fullText?: string;
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly updatedAfter?: string;
  readonly updatedBefore?: string;
  readonly sort?: 'asc' | 'desc';
}

/** The table a list reads: its alias in the SQL, its type in the polymorphic tables, and the column of the project a list covers. */
export interface IssuableTable {
  readonly name: 'issues' | 'merge_requests';
  readonly alias: 'i' | 'm';
  readonly type: 'Issue' | 'MergeRequest';
  readonly projectColumn: 'project_id' | 'target_project_id';
}

/**
 * An issue or merge request list as SQL: `from` joins, `candidates` the conditions the indexes
 * answer (the project, the state, iids...), `residual` the rest, checked per candidate row,
 * `countResidual` the residual as a count runs it (the same conditions, some in a form that starts
 * from a smaller index), and `order`.
 */
export interface IssuableListQuery {
  readonly from: string;
  readonly candidates: readonly string[];
  readonly residual: readonly string[];
  readonly countResidual: readonly string[];
  readonly params: Record<string, unknown>;
  readonly order: string;
}

/** An issuable list's SQL as its source and filters add to it, in the order they are read. */
export class IssuableListConditions {
  from: string;
  readonly candidates: string[] = [];
  readonly residual: string[] = [];
  readonly countResidual: string[] = [];
  readonly params: Record<string, unknown> = {};
  /** The caller's user id, bound as `@me`; null when anonymous. */
  readonly me: number | null;

  constructor(
    readonly table: IssuableTable,
    readonly actor: Actor | null,
  ) {
    this.from = `FROM ${table.name} ${table.alias}`;
    this.me = actor?.user.id ?? null;
    if (this.me !== null) this.params.me = this.me;
  }

  /** A condition the indexes answer. */
  candidate(condition: string, params: Record<string, unknown> = {}): void {
    this.candidates.push(condition);
    Object.assign(this.params, params);
  }

  /** A condition checked per candidate row; `counted` is the form the count runs, when another lets SQLite drive the count from a smaller index. */
  check(condition: string, params: Record<string, unknown> = {}, counted = condition): void {
    this.residual.push(condition);
    this.countResidual.push(counted);
    Object.assign(this.params, params);
  }

  query(order: string): IssuableListQuery {
    return { from: this.from, candidates: this.candidates, residual: this.residual, countResidual: this.countResidual, params: this.params, order };
  }
}

export const whereOf = (conditions: readonly string[]) => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

const escapeLike = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** The source's conditions: a project's rows by index; across projects each row's project joined, for the group's tree and `readableAnywhere`, the read rule. */
export function sourceConditions(db: Db, q: IssuableListConditions, source: IssuableListSource, readableAnywhere: (actor: Actor | null) => SqlCondition): void {
  const { alias, projectColumn } = q.table;
  if ('project' in source) {
    q.candidate(`${alias}.${projectColumn} = @project`, { project: source.project.id });
    return;
  }
  q.from += ` JOIN projects p ON p.id = ${alias}.${projectColumn}`;
  if ('group' in source) q.check('p.namespace_id IN (SELECT value FROM json_each(@namespaces))', { namespaces: JSON.stringify(groupTreeIds(db, source.group.id)) });
  const readable = readableAnywhere(q.actor);
  q.check(readable.sql, readable.params);
}

export function stateAndIidConditions(q: IssuableListConditions, filters: { readonly state?: string; readonly iids?: readonly number[] }): void {
  const { alias } = q.table;
  if (filters.state) q.candidate(`${alias}.state = @state`, { state: filters.state });
  if (filters.iids) q.candidate(`${alias}.iid IN (SELECT value FROM json_each(@iids))`, { iids: JSON.stringify(filters.iids) });
}

export function authorCondition(q: IssuableListConditions, filters: IssuableFilters): void {
  if (filters.authorId !== undefined) q.check(`${q.table.alias}.author_id = @author`, { author: filters.authorId });
}

/** `my_reaction_emoji` (for a signed-in caller), `search` and the full-text search. */
export function reactionAndSearchConditions(q: IssuableListConditions, filters: IssuableFilters): void {
  const { alias, type } = q.table;
  if (filters.myReactionEmoji !== undefined && q.me !== null) {
    const mine = `SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = '${type}' AND ae.awardable_id = ${alias}.id AND ae.user_id = @me`;
    if (filters.myReactionEmoji === 'none') q.check(`NOT EXISTS (${mine})`);
    else if (filters.myReactionEmoji === 'any') q.check(`EXISTS (${mine})`);
    else q.check(`EXISTS (${mine} AND ae.name = @emoji)`, { emoji: filters.myReactionEmoji });
  }
  if (filters.fullText !== undefined) {
    const match = textMatch(q.table.name, alias, 'title', filters.fullText);
    q.candidate(match.sql, match.params);
  }
  if (filters.search) q.check(`(${alias}.title LIKE @search ESCAPE '\\' OR ${alias}.description LIKE @search ESCAPE '\\')`, { search: escapeLike(filters.search) });
}

export function dateConditions(q: IssuableListConditions, filters: IssuableFilters): void {
  for (const [name, column, op] of [
    ['createdAfter', 'created_at', '>='],
    ['createdBefore', 'created_at', '<='],
    ['updatedAfter', 'updated_at', '>='],
    ['updatedBefore', 'updated_at', '<='],
  ] as const) {
    if (filters[name] !== undefined) q.check(`${q.table.alias}.${column} ${op} @${name}`, { [name]: filters[name] });
  }
}

/** The label filter; false when a title names no label the list's rows could carry (the list is empty). */
export function labelConditions(db: Db, q: IssuableListConditions, source: IssuableListSource, labels: IssuableFilters['labels']): boolean {
  const { alias, type } = q.table;
  if (labels === 'none') q.check(`NOT EXISTS (SELECT 1 FROM label_links nl WHERE nl.target_type = '${type}' AND nl.target_id = ${alias}.id)`);
  else if (labels === 'any') q.check(`EXISTS (SELECT 1 FROM label_links nl WHERE nl.target_type = '${type}' AND nl.target_id = ${alias}.id)`);
  else if (labels?.length) {
    for (const [index, ids] of labelIdsByTitle(db, source, labels).entries()) {
      if (!ids.length) return false;
      const link = `l${index}`;
      // Pages walk the rows in order and probe each one's links; counts start from the label's links.
      q.check(
        `EXISTS (SELECT 1 FROM label_links ${link} WHERE ${link}.target_type = '${type}' AND ${link}.target_id = ${alias}.id AND ${link}.label_id IN (SELECT value FROM json_each(@labels${index})))`,
        { [`labels${index}`]: JSON.stringify(ids) },
        `${alias}.id IN (SELECT ${link}.target_id FROM label_links ${link} WHERE ${link}.label_id IN (SELECT value FROM json_each(@labels${index})) AND ${link}.target_type = '${type}')`,
      );
    }
  }
  return true;
}

/** The milestone filter; false when the title names no milestone (the list is empty). */
export function milestoneCondition(db: Db, q: IssuableListConditions, source: IssuableListSource, milestone: IssuableFilters['milestone']): boolean {
  const { alias } = q.table;
  if (milestone === 'none') q.check(`${alias}.milestone_id IS NULL`);
  else if (milestone === 'any') q.check(`${alias}.milestone_id IS NOT NULL`);
  else if (milestone !== undefined) {
    const ids = 'project' in source ? milestoneIdsWithTitle(db, projectMilestoneScope(db, source.project), milestone) : milestoneIdsWithTitleAnywhere(db, milestone);
    if (!ids.length) return false;
    q.check(`${alias}.milestone_id IN (SELECT value FROM json_each(@milestones))`, { milestones: JSON.stringify(ids) });
  }
  return true;
}

/** For each title of a label filter, the ids of the labels of that title the list's rows could carry. */
function labelIdsByTitle(db: Db, source: IssuableListSource, titles: readonly string[]): number[][] {
  if ('project' in source) {
    const labels = findLabelsByTitles(db, projectLabelScope(db, source.project), titles);
    return titles.map((title) => labels.filter((label) => label.title === title).map((label) => label.id));
  }
  return titles.map((title) => labelIdsWithTitle(db, title));
}
