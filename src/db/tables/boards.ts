import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface BoardRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  name: string;
  milestone_id: number | null;
  assignee_id: number | null;
  weight: number | null;
  created_at: string;
  updated_at: string;
}

/** Whose boards: a project's or a group's. */
export type BoardOwner = { readonly projectId: number } | { readonly groupId: number };

const ownerWhere = (owner: BoardOwner) => ('projectId' in owner ? 'project_id = ?' : 'group_id = ?');
const ownerId = (owner: BoardOwner) => ('projectId' in owner ? owner.projectId : owner.groupId);

export function listBoardsOf(db: Db, owner: BoardOwner, page: Page): Paged<BoardRow> {
  return selectPage(db, '*', `FROM boards WHERE ${ownerWhere(owner)}`, 'id', [ownerId(owner)], page);
}

/** The owner's board with this id; undefined when it belongs elsewhere. */
export function findBoardOf(db: Db, owner: BoardOwner, id: number): BoardRow | undefined {
  return prepare(db, `SELECT * FROM boards WHERE id = ? AND ${ownerWhere(owner)}`).get(id, ownerId(owner)) as BoardRow | undefined;
}

export function insertBoard(db: Db, row: Omit<BoardRow, 'id'>): number {
  return Number(
    prepare(
      db,
      `INSERT INTO boards (project_id, group_id, name, milestone_id, assignee_id, weight, created_at, updated_at)
       VALUES (@project_id, @group_id, @name, @milestone_id, @assignee_id, @weight, @created_at, @updated_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function deleteBoardRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM boards WHERE id = ?').run(id);
}

export function insertBoardLabel(db: Db, boardId: number, labelId: number): void {
  prepare(db, 'INSERT INTO board_labels (board_id, label_id) VALUES (?, ?)').run(boardId, labelId);
}

/** The scoping label ids of each board, in label id order. */
export function boardLabelIds(db: Db, boardIds: readonly number[]): Map<number, number[]> {
  const rows = prepare(db, 'SELECT board_id, label_id FROM board_labels WHERE board_id IN (SELECT value FROM json_each(?)) ORDER BY label_id').all(JSON.stringify(boardIds)) as {
    board_id: number;
    label_id: number;
  }[];
  const byBoard = new Map<number, number[]>();
  for (const row of rows) byBoard.set(row.board_id, [...(byBoard.get(row.board_id) ?? []), row.label_id]);
  return byBoard;
}
