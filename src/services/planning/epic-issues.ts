import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteEpicIssueRow,
  epicIssuesInOrder,
  findEpicIssueById,
  findEpicIssueOfIssue,
  insertEpicIssue,
  maxEpicPosition,
  setEpicIssuePosition,
  setEpicIssueIssue,
  epicIssueIdsOfProjectOutside,
  readableEpicIssuesInOrder,
  readableEpicIssuesPage,
  type EpicIssueRow,
} from '../../db/tables/epic-issues.js';
import { findEpicById, type EpicRow } from '../../db/tables/epics.js';
import { groupTreeIds, selfAndAncestorGroupIds } from '../../db/tables/groups.js';
import { assigneeIdsOf } from '../../db/tables/issue-assignees.js';
import { findIssueById, issuesByIds, type IssueRow } from '../../db/tables/issues.js';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { apiError, conflict, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { canReadIssue, readableIssuesAnywhere } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { placeAt, positionAfterLast } from './epic-positions.js';

/** An issue of an epic, with the association that puts it there. */
export interface EpicIssue {
  readonly link: EpicIssueRow;
  readonly issue: IssueRow;
}

/**
 * One page of the epic's issues in order (relative_position, then association id), those the actor
 * may read only (GitLab's EpicIssues::ListService), filtered and paged in SQL.
 */
export function listEpicIssues(db: Db, actor: Actor | null, epic: EpicRow, page: Page): Paged<EpicIssue> {
  const links = readableEpicIssuesPage(db, epic.id, readableIssuesAnywhere(actor), page);
  return { rows: withIssues(db, links.rows), total: links.total };
}

/** All of the epic's issues the actor may read, in order: what a reorder answers (SPEC, GITLAB-NOTES 2.6). */
export function allEpicIssues(db: Db, actor: Actor | null, epic: EpicRow): EpicIssue[] {
  return withIssues(db, readableEpicIssuesInOrder(db, epic.id, readableIssuesAnywhere(actor)));
}

/** The associations with their issues, one query for all. */
function withIssues(db: Db, links: EpicIssueRow[]): EpicIssue[] {
  const issues = new Map(issuesByIds(db, links.map((link) => link.issue_id)).map((issue) => [issue.id, issue]));
  return links.flatMap((link) => {
    const issue = issues.get(link.issue_id);
    return issue ? [{ link, issue }] : [];
  });
}

/** The association `id` of the epic; 404 `Not found` otherwise. */
export function findEpicIssue(db: Db, epic: EpicRow, id: number): EpicIssue {
  const link = findEpicIssueById(db, id);
  const issue = link && link.epic_id === epic.id ? findIssueById(db, link.issue_id) : undefined;
  if (!link || !issue) throw notFound();
  return { link, issue };
}

/**
 * Puts an issue (by its global id) at the end of the epic (the route checked admin_epic, GITLAB-NOTES
 * 2.6): 404 when it is missing, its project is in no group (GitLab's Issue#supports_epic?), or the
 * actor may not read it; 409 when it is already in this epic; an issue of another epic moves here.
 * The issue may belong to any group's project the actor reads, not only the epic's group and its
 * subgroups, as GitLab 18 allows (10.x answered 404 there).
 */
export function assignEpicIssue(db: Db, actor: Actor, epic: EpicRow, issueId: number): EpicIssue {
  const issue = findIssueById(db, issueId);
  const project = issue && findProjectById(db, issue.project_id);
  if (!issue || !project || findNamespaceById(db, project.namespace_id)?.kind !== 'group') throw notFound();
  if (!canReadIssue(db, actor, project, { ...issue, assigneeIds: assigneeIdsOf(db, issue.id) })) throw notFound();
  return inTransaction(db, () => {
    const existing = findEpicIssueOfIssue(db, issue.id);
    if (existing?.epic_id === epic.id) throw conflict('Issue(s) already assigned');
    if (existing) deleteEpicIssueRow(db, existing.id);
    const now = nowIso();
    const id = insertEpicIssue(db, { epic_id: epic.id, issue_id: issue.id, relative_position: positionAfterLast(maxEpicPosition(db, epic.id)), created_at: now, updated_at: now });
    return { link: findEpicIssueById(db, id)!, issue };
  });
}

/** Takes an association out of its epic; the issue stays. */
export function removeEpicIssue(db: Db, link: EpicIssueRow): void {
  inTransaction(db, () => deleteEpicIssueRow(db, link.id));
}

/** Where a reorder puts the moved association: after `beforeId`, before `afterId`, or between them (decision 15). */
export interface EpicIssueMove {
  readonly beforeId?: number;
  readonly afterId?: number;
}

const cannotMove = () => apiError('Issue could not be moved!');

/**
 * Moves an association of the epic (GITLAB-NOTES decision 15): with `beforeId` X it ends right
 * after X, with `afterId` Y right before Y, with both between them (X must come before Y). An id
 * that is not another association of this epic is GitLab's 400 `Issue could not be moved!`. The
 * move writes one row, or re-lays the epic when the gap it needs has closed.
 */
export function moveEpicIssue(db: Db, epic: EpicRow, link: EpicIssueRow, move: EpicIssueMove): void {
  inTransaction(db, () => {
    const others = epicIssuesInOrder(db, epic.id).filter((row) => row.id !== link.id);
    const indexOf = (id: number | undefined): number | undefined => {
      if (id === undefined) return undefined;
      const index = others.findIndex((row) => row.id === id);
      if (index < 0) throw cannotMove();
      return index;
    };
    const after = indexOf(move.beforeId);
    const before = indexOf(move.afterId);
    if (after === undefined && before === undefined) return;
    if (after !== undefined && before !== undefined && before <= after) throw cannotMove();
    const index = after !== undefined ? after + 1 : before!;
    const now = nowIso();
    for (const write of placeAt(others, link, index)) setEpicIssuePosition(db, write.id, write.position, now);
  });
}

/**
 * What a move of an issue to another project (services/issuables/move-issue.ts) does to its epic,
 * in the move's transaction: the copy takes the original's place when its project is still under
 * the epic's group, as GitLab EE's MoveService, and the issue leaves the epic otherwise.
 */
export function followMovedIssue(db: Db, oldIssueId: number, copy: IssueRow, target: ProjectRow): void {
  const link = findEpicIssueOfIssue(db, oldIssueId);
  const epic = link && findEpicById(db, link.epic_id);
  if (!link || !epic) return;
  if (groupTreeIds(db, epic.group_id).includes(target.namespace_id)) setEpicIssueIssue(db, link.id, copy.id, nowIso());
  else deleteEpicIssueRow(db, link.id);
}

/** What a transfer of a project does, in its transaction: its issues leave the epics of groups the project is no longer under. */
export function dropEpicIssuesOutside(db: Db, projectId: number, namespaceId: number): void {
  for (const id of epicIssueIdsOfProjectOutside(db, projectId, selfAndAncestorGroupIds(db, namespaceId))) deleteEpicIssueRow(db, id);
}
