import type { Db } from '../../db/connection.js';
import { countUpTo, type Page, type Paged } from '../../db/page.js';
import { issuePage, type IssueRow } from '../../db/tables/issues.js';
import { readableIssuesAnywhere, readableIssuesInProject } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { authorCondition, dateConditions, IssuableListConditions, labelConditions, milestoneCondition, reactionAndSearchConditions, sourceConditions, stateAndIidConditions, whereOf } from './issuable-lists.js';
import type { IssuableFilters, IssuableListQuery, IssuableListSource, IssuableTable } from './issuable-lists.js';

export const ISSUE_ORDERS = ['created_at', 'updated_at', 'priority', 'due_date', 'relative_position', 'label_priority', 'milestone_due', 'popularity', 'weight'] as const;
export type IssueOrder = (typeof ISSUE_ORDERS)[number];

/** The filters of every issue list (GitLab's IssuesFinder params), already read and validated. */
export interface IssueFilters extends IssuableFilters {
  readonly state?: 'opened' | 'closed';
  /** Issues carrying any of these labels, by id (a board list's label, whatever other label shares its title). */
  readonly labelIds?: readonly number[];
  readonly confidential?: boolean;
  readonly orderBy?: IssueOrder;
}

const ISSUES: IssuableTable = { name: 'issues', alias: 'i', type: 'Issue', projectColumn: 'project_id' };

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
 * An issue list as SQL (see IssuableListQuery): a project's list answers the project, the state
 * and iids from its indexes and checks labels, assignees, the confidential rule... per row. Null
 * when a filter names something that does not exist (a label or milestone title): the list is empty.
 */
export function issueListQuery(db: Db, actor: Actor | null, source: IssuableListSource, filters: IssueFilters): IssuableListQuery | null {
  const q = new IssuableListConditions(ISSUES, actor);
  sourceConditions(db, q, source, readableIssuesAnywhere);
  if ('project' in source) {
    const readable = readableIssuesInProject(db, actor, source.project);
    if (readable.sql !== '1') q.check(readable.sql, readable.params);
  }
  stateAndIidConditions(q, filters);
  if (filters.scope === 'created_by_me' || filters.scope === 'assigned_to_me') {
    if (q.me === null) return null;
    q.check(filters.scope === 'created_by_me' ? 'i.author_id = @me' : 'EXISTS (SELECT 1 FROM issue_assignees sa WHERE sa.issue_id = i.id AND sa.user_id = @me)');
  }
  authorCondition(q, filters);
  if (filters.assigneeId === 'none') q.check('NOT EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = i.id)');
  else if (filters.assigneeId === 'any') q.check('EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = i.id)');
  else if (filters.assigneeId !== undefined) q.check('EXISTS (SELECT 1 FROM issue_assignees fa WHERE fa.issue_id = i.id AND fa.user_id = @assignee)', { assignee: filters.assigneeId });
  reactionAndSearchConditions(q, filters);
  dateConditions(q, filters);
  if (filters.confidential !== undefined) q.check(`i.confidential = ${filters.confidential ? 1 : 0}`);
  if (!labelConditions(db, q, source, filters.labels)) return null;
  if (filters.labelIds) {
    // The list starts from the label's links (a board list's issues) and reads each issue by id,
    // rather than walk every open issue of the project and probe each: SQLite, without
    // statistics, would pick the (project, state) index.
    q.from = q.from.replace('FROM issues i', 'FROM issues i NOT INDEXED');
    q.candidate("i.id IN (SELECT bl.target_id FROM label_links bl WHERE bl.label_id IN (SELECT value FROM json_each(@labelIds)) AND bl.target_type = 'Issue')", { labelIds: JSON.stringify(filters.labelIds) });
  }
  if (!milestoneCondition(db, q, source, filters.milestone)) return null;
  return q.query(orderOf(filters.orderBy ?? 'created_at', filters.sort ?? 'desc'));
}

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
export function listIssues(db: Db, actor: Actor | null, source: IssuableListSource, filters: IssueFilters, page: Page): Paged<IssueRow> {
  const query = issueListQuery(db, actor, source, filters);
  if (!query) return { rows: [], total: 0 };
  const fromWhere = `${query.from}${whereOf([...query.candidates, ...query.residual])}`;
  const rows = issuePage(db, fromWhere, query.order, query.params, page);
  const bounded = 'project' in source && query.residual.length > 0;
  if (bounded && countUpTo(db, `${query.from}${whereOf(query.candidates)}`, [query.params]) === null) return { rows, total: null };
  return { rows, total: countUpTo(db, `${query.from}${whereOf([...query.candidates, ...query.countResidual])}`, [query.params]) };
}
