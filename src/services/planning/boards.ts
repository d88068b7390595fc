import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { insertBoardList, labelListsOfBoards, type LabelListRow } from '../../db/tables/board-lists.js';
import { boardLabelIds, deleteBoardRow, findBoardOf, insertBoard, insertBoardLabel, listBoardsOf, type BoardOwner, type BoardRow } from '../../db/tables/boards.js';
import { findLabelsByTitles, labelsByIds, type LabelScope } from '../../db/tables/labels.js';
import { findMilestoneInScope, milestonesByIds, type MilestoneScope } from '../../db/tables/milestones.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { findUserById } from '../../db/tables/users.js';
import type { BoardRelations } from '../../entities/boards.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';

/** Where a board's labels and milestone come from: its project's (with its groups') or its group's (with the groups above). */
export interface BoardScopes {
  readonly owner: BoardOwner;
  readonly labels: LabelScope;
  readonly milestones: MilestoneScope;
}

export function listBoards(db: Db, owner: BoardOwner, page: Page): Paged<BoardRow> {
  return listBoardsOf(db, owner, page);
}

/** The owner's board; 404 `Board` when it has none of this id. */
export function findBoard(db: Db, owner: BoardOwner, id: number): BoardRow {
  const board = findBoardOf(db, owner, id);
  if (!board) throw notFound('Board');
  return board;
}

/** What a new board (ee) takes: a name, and optionally GitLab ee's scoping fields. */
export interface BoardInput {
  readonly name: string;
  readonly milestoneId?: number;
  readonly assigneeId?: number;
  readonly weight?: number;
  readonly labels?: readonly string[];
}

/**
 * Creates a board with its hidden backlog and closed lists, in one transaction. A milestone must
 * be one of the scope's (404 `Milestone`), an assignee an existing user (404 `User`), scoping
 * labels the scope's by title (404 `Label`).
 */
export function createBoard(db: Db, scopes: BoardScopes, input: BoardInput): BoardRow {
  return inTransaction(db, () => {
    if (input.milestoneId !== undefined && !findMilestoneInScope(db, scopes.milestones, input.milestoneId)) throw notFound('Milestone');
    if (input.assigneeId !== undefined && !findUserById(db, input.assigneeId)) throw notFound('User');
    const titles = [...new Set(input.labels ?? [])];
    const labels = findLabelsByTitles(db, scopes.labels, titles);
    const labelIds = titles.map((title) => labels.find((label) => label.title === title)?.id);
    if (labelIds.some((id) => id === undefined)) throw notFound('Label');
    const now = nowIso();
    const id = insertBoard(db, {
      project_id: 'projectId' in scopes.owner ? scopes.owner.projectId : null,
      group_id: 'groupId' in scopes.owner ? scopes.owner.groupId : null,
      name: input.name,
      milestone_id: input.milestoneId ?? null,
      assignee_id: input.assigneeId ?? null,
      weight: input.weight ?? null,
      created_at: now,
      updated_at: now,
    });
    for (const labelId of labelIds) insertBoardLabel(db, id, labelId!);
    for (const listType of ['backlog', 'closed'] as const) {
      insertBoardList(db, { board_id: id, list_type: listType, label_id: null, position: null, created_at: now, updated_at: now });
    }
    return findBoard(db, scopes.owner, id);
  });
}

/** Deletes a board; its lists and scoping labels go with it (foreign keys: no polymorphic rows point at a board). */
export function deleteBoard(db: Db, board: BoardRow): void {
  inTransaction(db, () => deleteBoardRow(db, board.id));
}

/** What the Board views need beyond the rows, one query per kind for a whole page of boards. */
export function loadBoardRelations(db: Db, boards: readonly BoardRow[]): BoardRelations {
  const boardIds = boards.map((board) => board.id);
  const lists = labelListsOfBoards(db, boardIds);
  const scoping = boardLabelIds(db, boardIds);
  const labels = labelsByIds(db, [...new Set([...lists.map((list) => list.label_id), ...[...scoping.values()].flat()])]);
  const listsByBoard = new Map<number, LabelListRow[]>();
  for (const list of lists) listsByBoard.set(list.board_id, [...(listsByBoard.get(list.board_id) ?? []), list]);
  return {
    lists: listsByBoard,
    labels,
    scopingLabels: scoping,
    milestones: milestonesByIds(db, boards.flatMap((board) => (board.milestone_id === null ? [] : [board.milestone_id]))),
    assignees: usersByIds(db, boards.flatMap((board) => (board.assignee_id === null ? [] : [board.assignee_id]))),
  };
}
