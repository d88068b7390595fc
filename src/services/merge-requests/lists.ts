import type { Db } from '../../db/connection.js';
import { COUNT_LIMIT, countUpTo, type Page, type Paged } from '../../db/page.js';
import { mergeRequestPage, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { authorCondition, dateConditions, IssuableListConditions, labelConditions, milestoneCondition, reactionAndSearchConditions, sourceConditions, stateAndIidConditions, whereOf } from '../issuables/issuable-lists.js';
import type { IssuableFilters, IssuableListQuery, IssuableListSource, IssuableTable, Presence } from '../issuables/issuable-lists.js';
import { findUserByUsername } from '../../db/tables/users.js';
import { readableMergeRequestsAnywhere } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

/** The filters of every merge request list (GitLab's MergeRequestsFinder params, SPEC "Merge requests"), already read and validated. */
export interface MergeRequestFilters extends IssuableFilters {
  readonly state?: 'opened' | 'closed' | 'merged' | 'locked';
  readonly sourceBranch?: string;
  readonly targetBranch?: string;
  /** `yes`: only work in progress; `no`: none of it. */
  readonly wip?: 'yes' | 'no';
  /** A reviewer's id, or whether there is one (GitLab 13.7's `reviewer_id`, with `None` and `Any`). */
  readonly reviewerId?: number | Presence;
  readonly reviewerUsername?: string;
  readonly orderBy?: 'created_at' | 'updated_at';
}

/** Merge requests belong to the project they target. */
const MERGE_REQUESTS: IssuableTable = { name: 'merge_requests', alias: 'm', type: 'MergeRequest', projectColumn: 'target_project_id' };

/** GitLab's work in progress title prefixes, as SQL over `m.title` (entities/merge-requests.ts isWorkInProgress says the same in code). */
const WIP_SQL = ["'wip:%'", "'[wip]%'", "'wip %'", "'draft:%'", "'[draft]%'", "'(draft)%'", "'draft -%'"].map((pattern) => `lower(ltrim(m.title)) LIKE ${pattern}`).join(' OR ');

/**
 * A merge request list as SQL (see IssuableListQuery): `candidates` are the conditions the indexes
 * answer (the target project, the state, the author or assignee of the global scopes, iids). Null
 * when a filter names something that does not exist: the list is empty. (The mr-list bench reads
 * its plan.)
 */
export function mergeRequestListQuery(db: Db, actor: Actor | null, source: IssuableListSource, filters: MergeRequestFilters): IssuableListQuery | null {
  const q = new IssuableListConditions(MERGE_REQUESTS, actor);
  sourceConditions(db, q, source, readableMergeRequestsAnywhere);
  stateAndIidConditions(q, filters);
  if (filters.scope === 'created_by_me' || filters.scope === 'assigned_to_me') {
    if (q.me === null) return null;
    const mine = filters.scope === 'created_by_me' ? 'm.author_id = @me' : 'm.assignee_id = @me';
    // The global list's default: these start from the author's (or assignee's) index.
    if ('project' in source) q.check(mine);
    else q.candidate(mine);
  }
  authorCondition(q, filters);
  if (filters.assigneeId === 'none') q.check('m.assignee_id IS NULL');
  else if (filters.assigneeId === 'any') q.check('m.assignee_id IS NOT NULL');
  else if (filters.assigneeId !== undefined) q.check('m.assignee_id = @assignee', { assignee: filters.assigneeId });
  reactionAndSearchConditions(q, filters);
  if (filters.sourceBranch !== undefined) q.check('m.source_branch = @sourceBranch', { sourceBranch: filters.sourceBranch });
  if (filters.targetBranch !== undefined) q.check('m.target_branch = @targetBranch', { targetBranch: filters.targetBranch });
  const reviewer = filters.reviewerUsername !== undefined ? findUserByUsername(db, filters.reviewerUsername)?.id : filters.reviewerId;
  if (filters.reviewerUsername !== undefined && reviewer === undefined) return null;
  const reviewed = 'EXISTS (SELECT 1 FROM merge_request_reviewers r WHERE r.merge_request_id = m.id';
  if (reviewer === 'none') q.check(`NOT ${reviewed})`);
  else if (reviewer === 'any') q.check(`${reviewed})`);
  else if (reviewer !== undefined) q.check(`${reviewed} AND r.user_id = @reviewer)`, { reviewer });
  if (filters.wip === 'yes') q.check(`(${WIP_SQL})`);
  else if (filters.wip === 'no') q.check(`NOT (${WIP_SQL})`);
  dateConditions(q, filters);
  if (!labelConditions(db, q, source, filters.labels)) return null;
  if (!milestoneCondition(db, q, source, filters.milestone)) return null;
  const column = filters.orderBy ?? 'created_at';
  const dir = (filters.sort ?? 'desc').toUpperCase();
  return q.query(`m.${column} ${dir}, m.id ${dir}`);
}

/**
 * A page of merge requests from `source` that the actor may read and that match the filters, paged
 * in SQL: a project's list walks its (target project, created_at) or (target project, state,
 * created_at) index in order, so page 1 costs the same at any size; the global scopes walk the
 * author's or assignee's index. The total stops at COUNT_LIMIT (no X-Total past it, as GitLab).
 * The caller checked read_merge_request on a project source.
 */
export function listMergeRequests(db: Db, actor: Actor | null, source: IssuableListSource, filters: MergeRequestFilters, page: Page): Paged<MergeRequestRow> {
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
