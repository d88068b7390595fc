import type { Db } from '../../db/connection.js';
import { COUNT_LIMIT, countUpTo, type Page, type Paged } from '../../db/page.js';
import { groupTreeIds } from '../../db/tables/groups.js';
import { findLabelsByTitles, labelIdsWithTitle } from '../../db/tables/labels.js';
import { mergeRequestPage, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { milestoneIdsWithTitle, milestoneIdsWithTitleAnywhere } from '../../db/tables/milestones.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { Presence } from '../issuables/issue-lists.js';
import { projectLabelScope, projectMilestoneScope } from '../issuables/scopes.js';
import { readableMergeRequestsAnywhere } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

/** The filters of every merge request list (GitLab's MergeRequestsFinder params, SPEC "Merge requests"), already read and validated. */
export interface MergeRequestFilters {
  readonly state?: 'opened' | 'closed' | 'merged' | 'locked';
  /** Every title must be on the merge request; or none at all, or any. */
  readonly labels?: readonly string[] | Presence;
  readonly milestone?: string | Presence;
  readonly iids?: readonly number[];
  readonly scope?: 'created_by_me' | 'assigned_to_me' | 'all';
  readonly authorId?: number;
  readonly assigneeId?: number | Presence;
  readonly myReactionEmoji?: string | Presence;
  /** Case-insensitive substring of the title or the description. */
  readonly search?: string;
  readonly sourceBranch?: string;
  readonly targetBranch?: string;
  /** `yes`: only work in progress; `no`: none of it. */
  readonly wip?: 'yes' | 'no';
  readonly createdAfter?: string;
  readonly createdBefore?: string;
  readonly updatedAfter?: string;
  readonly updatedBefore?: string;
  readonly orderBy?: 'created_at' | 'updated_at';
  readonly sort?: 'asc' | 'desc';
}

/** Which merge requests a list covers: one project's (as target), those of a group's projects and its subgroups', or every project the caller reads. */
export type MergeRequestListSource = { readonly project: ProjectRow } | { readonly group: NamespaceRow } | { readonly everywhere: true };

const escapeLike = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** GitLab's work in progress title prefixes, as SQL over `m.title` (entities/merge-requests.ts isWorkInProgress says the same in code). */
const WIP_SQL = ["'wip:%'", "'[wip]%'", "'wip %'", "'draft:%'", "'[draft]%'", "'(draft)%'", "'draft -%'"].map((pattern) => `lower(ltrim(m.title)) LIKE ${pattern}`).join(' OR ');

/**
 * A merge request list as SQL: `candidates` are the conditions the indexes answer (the target
 * project, the state, the author or assignee of the global scopes, iids), `residual` the rest,
 * checked per candidate row. Null when a filter names something that does not exist: the list is
 * empty. (The mr-list bench reads its plan.)
 */
export function mergeRequestListQuery(db: Db, actor: Actor | null, source: MergeRequestListSource, filters: MergeRequestFilters) {
  const candidates: string[] = [];
  const residual: string[] = [];
  const params: Record<string, unknown> = {};
  let from = 'FROM merge_requests m';
  const me = actor?.user.id ?? null;
  if (me !== null) params.me = me;

  if ('project' in source) {
    candidates.push('m.target_project_id = @project');
    params.project = source.project.id;
  } else {
    from += ' JOIN projects p ON p.id = m.target_project_id';
    if ('group' in source) {
      residual.push('p.namespace_id IN (SELECT value FROM json_each(@namespaces))');
      params.namespaces = JSON.stringify(groupTreeIds(db, source.group.id));
    }
    const readable = readableMergeRequestsAnywhere(actor);
    residual.push(readable.sql);
    Object.assign(params, readable.params);
  }
  if (filters.state) {
    candidates.push('m.state = @state');
    params.state = filters.state;
  }
  if (filters.iids) {
    candidates.push('m.iid IN (SELECT value FROM json_each(@iids))');
    params.iids = JSON.stringify(filters.iids);
  }
  if (filters.scope === 'created_by_me' || filters.scope === 'assigned_to_me') {
    if (me === null) return null;
    // The global list's default: these start from the author's (or assignee's) index.
    ('project' in source ? residual : candidates).push(filters.scope === 'created_by_me' ? 'm.author_id = @me' : 'm.assignee_id = @me');
  }
  if (filters.authorId !== undefined) {
    residual.push('m.author_id = @author');
    params.author = filters.authorId;
  }
  if (filters.assigneeId === 'none') residual.push('m.assignee_id IS NULL');
  else if (filters.assigneeId === 'any') residual.push('m.assignee_id IS NOT NULL');
  else if (filters.assigneeId !== undefined) {
    residual.push('m.assignee_id = @assignee');
    params.assignee = filters.assigneeId;
  }
  if (filters.myReactionEmoji !== undefined && me !== null) {
    const mine = "SELECT 1 FROM award_emoji ae WHERE ae.awardable_type = 'MergeRequest' AND ae.awardable_id = m.id AND ae.user_id = @me";
    if (filters.myReactionEmoji === 'none') residual.push(`NOT EXISTS (${mine})`);
    else if (filters.myReactionEmoji === 'any') residual.push(`EXISTS (${mine})`);
    else {
      residual.push(`EXISTS (${mine} AND ae.name = @emoji)`);
      params.emoji = filters.myReactionEmoji;
    }
  }
  if (filters.search) {
    residual.push("(m.title LIKE @search ESCAPE '\\' OR m.description LIKE @search ESCAPE '\\')");
    params.search = escapeLike(filters.search);
  }
  if (filters.sourceBranch !== undefined) {
    residual.push('m.source_branch = @sourceBranch');
    params.sourceBranch = filters.sourceBranch;
  }
  if (filters.targetBranch !== undefined) {
    residual.push('m.target_branch = @targetBranch');
    params.targetBranch = filters.targetBranch;
  }
  if (filters.wip === 'yes') residual.push(`(${WIP_SQL})`);
  else if (filters.wip === 'no') residual.push(`NOT (${WIP_SQL})`);
  for (const [name, column, op] of [
    ['createdAfter', 'created_at', '>='],
    ['createdBefore', 'created_at', '<='],
    ['updatedAfter', 'updated_at', '>='],
    ['updatedBefore', 'updated_at', '<='],
  ] as const) {
    if (filters[name] === undefined) continue;
    residual.push(`m.${column} ${op} @${name}`);
    params[name] = filters[name];
  }
  if (filters.labels === 'none') residual.push("NOT EXISTS (SELECT 1 FROM label_links nl WHERE nl.target_type = 'MergeRequest' AND nl.target_id = m.id)");
  else if (filters.labels === 'any') residual.push("EXISTS (SELECT 1 FROM label_links nl WHERE nl.target_type = 'MergeRequest' AND nl.target_id = m.id)");
  else if (filters.labels?.length) {
    for (const [index, ids] of labelIdsByTitle(db, source, filters.labels).entries()) {
      if (!ids.length) return null;
      residual.push(
        `EXISTS (SELECT 1 FROM label_links l${index} WHERE l${index}.target_type = 'MergeRequest' AND l${index}.target_id = m.id AND l${index}.label_id IN (SELECT value FROM json_each(@labels${index})))`,
      );
      params[`labels${index}`] = JSON.stringify(ids);
    }
  }
  if (filters.milestone === 'none') residual.push('m.milestone_id IS NULL');
  else if (filters.milestone === 'any') residual.push('m.milestone_id IS NOT NULL');
  else if (filters.milestone !== undefined) {
    const ids = 'project' in source ? milestoneIdsWithTitle(db, projectMilestoneScope(db, source.project), filters.milestone) : milestoneIdsWithTitleAnywhere(db, filters.milestone);
    if (!ids.length) return null;
    residual.push('m.milestone_id IN (SELECT value FROM json_each(@milestones))');
    params.milestones = JSON.stringify(ids);
  }
  const column = filters.orderBy ?? 'created_at';
  const dir = (filters.sort ?? 'desc').toUpperCase();
  return { from, candidates, residual, params, order: `m.${column} ${dir}, m.id ${dir}` };
}

const whereOf = (conditions: readonly string[]) => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

/**
 * A page of merge requests from `source` that the actor may read and that match the filters, paged
 * in SQL: a project's list walks its (target project, created_at) or (target project, state,
 * created_at) index in order, so page 1 costs the same at any size; the global scopes walk the
 * author's or assignee's index. The total stops at COUNT_LIMIT (no X-Total past it, as GitLab).
 * The caller checked read_merge_request on a project source.
 */
export function listMergeRequests(db: Db, actor: Actor | null, source: MergeRequestListSource, filters: MergeRequestFilters, page: Page): Paged<MergeRequestRow> {
  const query = mergeRequestListQuery(db, actor, source, filters);
  if (!query) return { rows: [], total: 0 };
  const fromWhere = `${query.from}${whereOf([...query.candidates, ...query.residual])}`;
  const rows = mergeRequestPage(db, fromWhere, query.order, query.params, page.perPage, page.offset);
  // The default list of a project (no filter): its counter, not a count of up to 10,000 rows.
  if ('project' in source && query.candidates.length === 1 && query.residual.length === 0) {
    const total = source.project.merge_requests_count;
    return { rows, total: total > COUNT_LIMIT ? null : total };
  }
  if (query.residual.length > 0 && countUpTo(db, `${query.from}${whereOf(query.candidates)}`, [query.params]) === null) return { rows, total: null };
  return { rows, total: countUpTo(db, fromWhere, [query.params]) };
}

/** For each title of a label filter, the ids of the labels of that title the list's merge requests could carry. */
function labelIdsByTitle(db: Db, source: MergeRequestListSource, titles: readonly string[]): number[][] {
  if ('project' in source) {
    const labels = findLabelsByTitles(db, projectLabelScope(db, source.project), titles);
    return titles.map((title) => labels.filter((label) => label.title === title).map((label) => label.id));
  }
  return titles.map((title) => labelIdsWithTitle(db, title));
}
