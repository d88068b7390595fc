import type { Db } from '../../db/connection.js';
import { countUpTo, type Page, type Paged } from '../../db/page.js';
import { groupTreeIds } from '../../db/tables/groups.js';
import { issuePage, type IssueRow } from '../../db/tables/issues.js';
import { findLabelsByTitles, labelIdsWithTitle } from '../../db/tables/labels.js';
import { milestoneIdsWithTitle, milestoneIdsWithTitleAnywhere } from '../../db/tables/milestones.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { readableIssuesAnywhere, readableIssuesInProject } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { projectLabelScope, projectMilestoneScope } from './scopes.js';

export const ISSUE_ORDERS = ['created_at', 'updated_at', 'priority', 'due_date', 'relative_position', 'label_priority', 'milestone_due', 'popularity', 'weight'] as const;
export type IssueOrder = (typeof ISSUE_ORDERS)[number];

/** `None` (nothing set) and `Any` (something set), the two special values of GitLab's issue filters. */
export type Presence = 'none' | 'any';

/** The filters of every issue list (GitLab's IssuesFinder params), already read and validated. */
export interface IssueFilters {
  readonly state?: 'opened' | 'closed';
  /** Every title must be on the issue; or none at all, or any. */
  readonly labels?: readonly string[] | Presence;
  /** Issues carrying any of these labels, by id (a board list's label, whatever other label shares its title). */
  readonly labelIds?: readonly number[];
  readonly milestone?: string | Presence;
  readonly iids?: readonly number[];
  readonly scope?: 'created_by_me' | 'assigned_to_me' | 'all';
  readonly authorId?: number;
  readonly assigneeId?: number | Presence;
  readonly myReactionEmoji?: string | Presence;
  /** Case-insensitive substring of the title or the description. */
  readonly search?: string;
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly updatedAfter?: string;
  readonly updatedBefore?: string;
  readonly confidential?: boolean;
  readonly orderBy?: IssueOrder;
  readonly sort?: 'asc' | 'desc';
}

/** Which issues a list covers: one project's, the projects of a group and its subgroups, or every project the caller reads. */
export type IssueListSource = { readonly project: ProjectRow } | { readonly group: NamespaceRow } | { readonly everywhere: true };

const escapeLike = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** The order of a list: the column or computed value GitLab sorts by, blanks last, then the id for a stable page. */
function orderOf(orderBy: IssueOrder, sort: 'asc' | 'desc'): string {
  const dir = sort.toUpperCase();
  const labelPriority = `(SELECT min(lp.priority) FROM label_links ll JOIN label_priorities lp ON lp.label_id = ll.label_id AND lp.project_id = i.project_id
     WHERE ll.target_type = 'Issue' AND ll.target_id = i.id)`;
  const milestoneDue = '(SELECT m.due_date FROM milestones m WHERE m.id = i.milestone_id)';
  switch (orderBy) {
    case 'created_at':
    case 'updated_at':
      return `i.${orderBy} ${dir}, i.id ${dir}`;
    case 'due_date':
    case 'relative_position':
    case 'weight':
      return `i.${orderBy} ${dir} NULLS LAST, i.id ${dir}`;
    case 'milestone_due':
      return `${milestoneDue} ${dir} NULLS LAST, i.id ${dir}`;
    case 'label_priority':
      return `${labelPriority} ${dir} NULLS LAST, i.id ${dir}`;
    case 'priority':
      // GitLab's `priority`: the milestone due soonest first, then the highest label priority.
      return `${milestoneDue} ${dir} NULLS LAST, ${labelPriority} ${dir} NULLS LAST, i.id ${dir}`;
    case 'popularity':
      return `(SELECT count(*) FROM award_emoji ae WHERE ae.awardable_type = 'Issue' AND ae.awardable_id = i.id AND ae.name = 'thumbsup') ${dir}, i.id ${dir}`;
  }
}

/**
 * An issue list as SQL: `from` joins, `candidates` the conditions a project's list answers from
 * its indexes (the project, the state, iids), `residual` the rest (labels, assignees, the
 * confidential rule...), checked per candidate row, and `order`. Null when a filter names
 * something that does not exist (a label or milestone title): the list is empty.
 */
export interface IssueListQuery {
  readonly from: string;
  readonly candidates: readonly string[];
  readonly residual: readonly string[];
  /** `residual` as the count runs it: the same conditions, some in a form that starts from a smaller index. */
  readonly countResidual: readonly string[];
  readonly params: Record<string, unknown>;
  readonly order: string;
}

export function issueListQuery(db: Db, actor: Actor | null, source: IssueListSource, filters: IssueFilters): IssueListQuery | null {
  const candidates: string[] = [];
  const where: string[] = [];
  const countWhere: string[] = [];
  /** A residual condition; `counted` is the form the count runs, when another lets SQLite drive the count from a smaller index. */
  const residual = (condition: string, counted = condition) => {
    where.push(condition);
    countWhere.push(counted);
  };
  const params: Record<string, unknown> = {};
  let from = 'FROM issues i';
  const me = actor?.user.id ?? null;
  if (me !== null) params.me = me;

  if ('project' in source) {
    candidates.push('i.project_id = @project');
    params.project = source.project.id;
    const readable = readableIssuesInProject(db, actor, source.project);
    if (readable.sql !== '1') residual(readable.sql);
    Object.assign(params, readable.params);
  } else {
    from += ' JOIN projects p ON p.id = i.project_id';
    if ('group' in source) {
      residual('p.namespace_id IN (SELECT value FROM json_each(@namespaces))');
      params.namespaces = JSON.stringify(groupTreeIds(db, source.group.id));
    }
    const readable = readableIssuesAnywhere(actor);
    residual(readable.sql);
    Object.assign(params, readable.params);
  }

  if (filters.state) {
    candidates.push('i.state = @state');
    params.state = filters.state;
  }
  if (filters.iids) {
    candidates.push('i.iid IN (SELECT value FROM json_each(@iids))');
    params.iids = JSON.stringify(filters.iids);
  }
  if (filters.scope === 'created_by_me' || filters.scope === 'assigned_to_me') {
    if (me === null) return null;
    residual(filters.scope === 'created_by_me' ? 'i.author_id = @me' : 'EXISTS (SELECT 1 FROM issue_assignees sa WHERE sa.issue_id = i.id AND sa.user_id = @me)');
  }
  if (filters.authorId !== undefined) {
    residual('i.author_id = @author');
    params.author = filters.authorId;
  }
  if (filters.assigneeId === 'none') residual('NOT EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = i.id)');
  else if (filters.assigneeId === 'any') residual('EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = i.id)');
  else if (filters.assigneeId !== undefined) {
    residual('EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = i.id AND fa.user_id = @assignee)');
    params.assignee = filters.assigneeId;
  }
  if (filters.myReactionEmoji !== undefined && me !== null) {
    const mine = "SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = 'Issue' AND ae.awardable_id = i.id AND ae.user_id = @me";
    if (filters.myReactionEmoji === 'none') residual(`NOT EXISTS (${mine})`);
    else if (filters.myReactionEmoji === 'any') residual(`EXISTS (${mine})`);
    else {
      residual(`EXISTS (${mine} AND ae.name = @emoji)`);
      params.emoji = filters.myReactionEmoji;
    }
  }
  if (filters.search) {
    residual("(i.title LIKE @search ESCAPE '\\' OR i.description LIKE @search ESCAPE '\\')");
    params.search = escapeLike(filters.search);
  }
  for (const [name, column, op] of [
    ['createdAfter', 'created_at', '>='],
    ['createdBefore', 'created_at', '<='],
    ['updatedAfter', 'updated_at', '>='],
    ['updatedBefore', 'updated_at', '<='],
  ] as const) {
    if (filters[name] === undefined) continue;
    residual(`i.${column} ${op} @${name}`);
    params[name] = filters[name];
  }
  if (filters.confidential !== undefined) residual(`i.confidential = ${filters.confidential ? 1 : 0}`);

  if (filters.labels === 'none') residual("NOT EXISTS (SELECT 1 FROM label_links nl WHERE nl.target_type = 'Issue' AND nl.target_id = i.id)");
  else if (filters.labels === 'any') residual("EXISTS (SELECT 1 FROM label_links nl WHERE nl.target_type = 'Issue' AND nl.target_id = i.id)");
  else if (filters.labels?.length) {
    for (const [index, ids] of labelIdsByTitle(db, source, filters.labels).entries()) {
      if (!ids.length) return null;
      // Pages walk the issues in order and probe each one's links; counts start from the label's links.
      residual(
        `EXISTS (SELECT 1 FROM label_links l${index} WHERE l${index}.target_type = 'Issue' AND l${index}.target_id = i.id AND l${index}.label_id IN (SELECT value FROM json_each(@labels${index})))`,
        `i.id IN (SELECT l${index}.target_id FROM label_links l${index} WHERE l${index}.label_id IN (SELECT value FROM json_each(@labels${index})) AND l${index}.target_type = 'Issue')`,
      );
      params[`labels${index}`] = JSON.stringify(ids);
    }
  }

  if (filters.labelIds) {
    // The list starts from the label's links (a board list's issues) and reads each issue by id,
    // rather than walk every open issue of the project and probe each: SQLite, without
    // statistics, would pick the (project, state) index.
    from = from.replace('FROM issues i', 'FROM issues i NOT INDEXED');
    candidates.push("i.id IN (SELECT bl.target_id FROM label_links bl WHERE bl.label_id IN (SELECT value FROM json_each(@labelIds)) AND bl.target_type = 'Issue')");
    params.labelIds = JSON.stringify(filters.labelIds);
  }

  if (filters.milestone === 'none') residual('i.milestone_id IS NULL');
  else if (filters.milestone === 'any') residual('i.milestone_id IS NOT NULL');
  else if (filters.milestone !== undefined) {
    const ids = 'project' in source ? milestoneIdsWithTitle(db, projectMilestoneScope(db, source.project), filters.milestone) : milestoneIdsWithTitleAnywhere(db, filters.milestone);
    if (!ids.length) return null;
    residual('i.milestone_id IN (SELECT value FROM json_each(@milestones))');
    params.milestones = JSON.stringify(ids);
  }

  return { from, candidates, residual: where, countResidual: countWhere, params, order: orderOf(filters.orderBy ?? 'created_at', filters.sort ?? 'desc') };
}

const whereOf = (conditions: readonly string[]) => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

/**
 * A page of issues from `source` that the actor may read and that match the filters, paged in
 * SQL: a project's list walks the (project, created_at) or (project, state, created_at) index in
 * order and probes the label, assignee and award indexes per row, so page 1 costs the same at any
 * size; lists across projects join each issue's project for the read rule.
 *
 * The total stops at COUNT_LIMIT rows examined, not only rows matched: when a project has more
 * candidate issues than that and other filters narrow them, the list answers without X-Total (as
 * GitLab does past 10,000), rather than probe a label or an assignee for up to every issue.
 */
export function listIssues(db: Db, actor: Actor | null, source: IssueListSource, filters: IssueFilters, page: Page): Paged<IssueRow> {
  const query = issueListQuery(db, actor, source, filters);
  if (!query) return { rows: [], total: 0 };
  const fromWhere = `${query.from}${whereOf([...query.candidates, ...query.residual])}`;
  const rows = issuePage(db, fromWhere, query.order, query.params, page);
  const bounded = 'project' in source && query.residual.length > 0;
  if (bounded && countUpTo(db, `${query.from}${whereOf(query.candidates)}`, [query.params]) === null) return { rows, total: null };
  return { rows, total: countUpTo(db, `${query.from}${whereOf([...query.candidates, ...query.countResidual])}`, [query.params]) };
}

/** For each title of a label filter, the ids of the labels of that title the list's issues could carry. */
function labelIdsByTitle(db: Db, source: IssueListSource, titles: readonly string[]): number[][] {
  if ('project' in source) {
    const labels = findLabelsByTitles(db, projectLabelScope(db, source.project), titles);
    return titles.map((title) => labels.filter((label) => label.title === title).map((label) => label.id));
  }
  return titles.map((title) => labelIdsWithTitle(db, title));
}
