import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface BoardListRow {
  id: number;
  board_id: number;
  list_type: 'backlog' | 'label' | 'closed';
  label_id: number | null;
  position: number | null;
  created_at: string;
  updated_at: string;
}

/** A label list: the only kind the API shows (the backlog and closed lists stay hidden). */
export type LabelListRow = BoardListRow & { list_type: 'label'; label_id: number; position: number };

const LABEL_LISTS = "FROM board_lists WHERE board_id = ? AND list_type = 'label'";

/** A page of the board's label lists by position. */
export function labelListsPage(db: Db, boardId: number, page: Page): Paged<LabelListRow> {
  return selectPage(db, '*', LABEL_LISTS, 'position, id', [boardId], page);
}

/** The label lists of these boards by position, as each board's `lists` shows them. */
export function labelListsOfBoards(db: Db, boardIds: readonly number[]): LabelListRow[] {
  return prepare(
    db,
    "SELECT * FROM board_lists WHERE board_id IN (SELECT value FROM json_each(?)) AND list_type = 'label' ORDER BY board_id, position, id",
  ).all(JSON.stringify(boardIds)) as LabelListRow[];
}

export function findLabelList(db: Db, boardId: number, id: number): LabelListRow | undefined {
  return prepare(db, `SELECT * ${LABEL_LISTS} AND id = ?`).get(boardId, id) as LabelListRow | undefined;
}

export function boardHasLabelList(db: Db, boardId: number, labelId: number): boolean {
  return prepare(db, 'SELECT 1 FROM board_lists WHERE board_id = ? AND label_id = ?').get(boardId, labelId) !== undefined;
}

/** How many label lists the board has: positions run 0 to count - 1. */
export function labelListCount(db: Db, boardId: number): number {
  return prepare(db, `SELECT count(*) ${LABEL_LISTS}`).pluck().get(boardId) as number;
}

export function insertBoardList(db: Db, row: Omit<BoardListRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO board_lists (board_id, list_type, label_id, position, created_at, updated_at) VALUES (@board_id, @list_type, @label_id, @position, @created_at, @updated_at)').run(row)
      .lastInsertRowid,
  );
}

/** Adds `delta` to the positions of the board's label lists from `from` to `to` (inclusive), the lists a move or delete passes over. */
export function shiftLabelLists(db: Db, boardId: number, from: number, to: number, delta: number, now: string): void {
  prepare(db, `UPDATE board_lists SET position = position + @delta, updated_at = @now WHERE board_id = @board AND list_type = 'label' AND position BETWEEN @from AND @to`).run({
    board: boardId,
    from,
    to,
    delta,
    now,
  });
}

export function setListPosition(db: Db, id: number, position: number, now: string): void {
  prepare(db, 'UPDATE board_lists SET position = ?, updated_at = ? WHERE id = ?').run(position, now, id);
}

export function deleteBoardListRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM board_lists WHERE id = ?').run(id);
}

/**
 * Deletes every list of the label, renumbering the lists after each on its board, in the caller's
 * transaction: a deleted label leaves no gap in any board.
 */
export function deleteListsOfLabel(db: Db, labelId: number, now: string): void {
  const lists = prepare(db, "SELECT * FROM board_lists WHERE label_id = ? AND list_type = 'label'").all(labelId) as LabelListRow[];
  for (const list of lists) {
    deleteBoardListRow(db, list.id);
    shiftLabelLists(db, list.board_id, list.position + 1, Number.MAX_SAFE_INTEGER, -1, now);
  }
}

/**
 * Points the lists of label `fromId` at label `toId` (a promoted label's lists follow it, as GitLab's
 * PromoteService does); a board that already has a list of `toId` loses the other one.
 */
export function moveListsToLabel(db: Db, fromId: number, toId: number, now: string): void {
  const lists = prepare(db, "SELECT * FROM board_lists WHERE label_id = ? AND list_type = 'label'").all(fromId) as LabelListRow[];
  for (const list of lists) {
    if (boardHasLabelList(db, list.board_id, toId)) continue;
    prepare(db, 'UPDATE board_lists SET label_id = ?, updated_at = ? WHERE id = ?').run(toId, now, list.id);
  }
  deleteListsOfLabel(db, fromId, now);
}
