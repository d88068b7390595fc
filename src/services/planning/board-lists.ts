import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  boardHasLabelList,
  deleteBoardListRow,
  findLabelList,
  insertBoardList,
  labelListCount,
  labelListsPage,
  setListPosition,
  shiftLabelLists,
  type LabelListRow,
} from '../../db/tables/board-lists.js';
import type { BoardRow } from '../../db/tables/boards.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { findLabelInScope, labelsByIds, type LabelRow, type LabelScope } from '../../db/tables/labels.js';
import { apiError, invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import type { IssuableListSource } from '../issuables/issuable-lists.js';
import { listIssues } from '../issuables/issue-lists.js';
import type { Actor } from '../users/authentication.js';

/** A label list with its label, as the List view shows it. */
export interface ListWithLabel {
  readonly list: LabelListRow;
  readonly label: LabelRow;
}

/** Each list with its label, the labels read in one query. */
export function withLabels(db: Db, lists: readonly LabelListRow[]): ListWithLabel[] {
  const labels = labelsByIds(db, lists.map((list) => list.label_id));
  return lists.map((list) => ({ list, label: labels.get(list.label_id)! }));
}

/** A page of the board's label lists by position; the backlog and closed lists never show (SPEC: Board list). */
export function listBoardLists(db: Db, board: BoardRow, page: Page): Paged<LabelListRow> {
  return labelListsPage(db, board.id, page);
}

/** A label list of the board; GitLab's `404 Not found` otherwise (the hidden lists included). */
export function findBoardList(db: Db, board: BoardRow, id: number): LabelListRow {
  const list = findLabelList(db, board.id, id);
  if (!list) throw notFound();
  return list;
}

/**
 * The label a new list would show, among those the board may use (its project's and their
 * groups', or its group's and the groups above): 400 `Label not found!` in render_api_error's
 * shape otherwise. GitLab checks this before it authorizes.
 */
export function availableLabel(db: Db, scope: LabelScope, labelId: number): LabelRow {
  const label = findLabelInScope(db, scope, labelId);
  if (!label) throw apiError('Label not found!');
  return label;
}

/** Appends a list of the label at the end of the board (position = the count of label lists); a label already listed is 400 `has already been taken`. */
export function createBoardList(db: Db, board: BoardRow, label: LabelRow): LabelListRow {
  return inTransaction(db, () => {
    if (boardHasLabelList(db, board.id, label.id)) throw invalid({ label: ['has already been taken'] });
    const now = nowIso();
    const id = insertBoardList(db, { board_id: board.id, list_type: 'label', label_id: label.id, position: labelListCount(db, board.id), created_at: now, updated_at: now });
    return findLabelList(db, board.id, id)!;
  });
}

/**
 * Moves a label list to `position`, clamped to the board's positions (0 to count - 1); the lists
 * it passes over shift by one toward its old place, so positions stay 0, 1, 2... without gaps.
 */
export function moveBoardList(db: Db, board: BoardRow, list: LabelListRow, position: number): LabelListRow {
  return inTransaction(db, () => {
    const target = Math.min(Math.max(position, 0), labelListCount(db, board.id) - 1);
    if (target !== list.position) {
      const now = nowIso();
      if (target > list.position) shiftLabelLists(db, board.id, list.position + 1, target, -1, now);
      else shiftLabelLists(db, board.id, target, list.position - 1, 1, now);
      setListPosition(db, list.id, target, now);
    }
    return findLabelList(db, board.id, list.id)!;
  });
}

/** Deletes a label list; the lists after it move up one. */
export function deleteBoardList(db: Db, board: BoardRow, list: LabelListRow): void {
  inTransaction(db, () => {
    deleteBoardListRow(db, list.id);
    shiftLabelLists(db, board.id, list.position + 1, Number.MAX_SAFE_INTEGER, -1, nowIso());
  });
}

/**
 * The open issues of a label list (those that carry its label; closed ones belong to the hidden
 * closed list, as on GitLab's boards), from the board's project or its group and subgroups, that
 * the actor may read (confidential ones by the issue list's rule), ordered by relative_position,
 * unpositioned ones last.
 */
export function listIssuesOfList(db: Db, actor: Actor | null, source: IssuableListSource, list: LabelListRow, page: Page): Paged<IssueRow> {
  return listIssues(db, actor, source, { state: 'opened', labelIds: [list.label_id], orderBy: 'relative_position', sort: 'asc' }, page);
}
