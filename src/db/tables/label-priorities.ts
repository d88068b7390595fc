import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** Each label's priority in one project (a group label may rank differently in each of its projects). */
export function labelPrioritiesIn(db: Db, projectId: number, labelIds: readonly number[]): Map<number, number> {
  if (!labelIds.length) return new Map();
  const rows = prepare(db, 'SELECT label_id, priority FROM label_priorities WHERE project_id = ? AND label_id IN (SELECT value FROM json_each(?))').all(
    projectId,
    JSON.stringify(labelIds),
  ) as { label_id: number; priority: number }[];
  return new Map(rows.map((row) => [row.label_id, row.priority]));
}

export function setLabelPriority(db: Db, projectId: number, labelId: number, priority: number): void {
  prepare(
    db,
    `INSERT INTO label_priorities (project_id, label_id, priority) VALUES (?, ?, ?)
     ON CONFLICT (project_id, label_id) DO UPDATE SET priority = excluded.priority`,
  ).run(projectId, labelId, priority);
}

export function removeLabelPriority(db: Db, projectId: number, labelId: number): void {
  prepare(db, 'DELETE FROM label_priorities WHERE project_id = ? AND label_id = ?').run(projectId, labelId);
}

/** Re-points a label's priorities at another label (promotion); where the other already ranks, that rank stays. */
export function moveLabelPriorities(db: Db, fromLabelId: number, toLabelId: number): void {
  prepare(
    db,
    `DELETE FROM label_priorities WHERE label_id = @from AND project_id IN (SELECT project_id FROM label_priorities WHERE label_id = @to)`,
  ).run({ from: fromLabelId, to: toLabelId });
  prepare(db, 'UPDATE label_priorities SET label_id = ? WHERE label_id = ?').run(toLabelId, fromLabelId);
}

/** Deletes a label's priorities, as a captured write before the label itself goes. */
export function deleteLabelPriorities(db: Db, labelId: number): void {
  prepare(db, 'DELETE FROM label_priorities WHERE label_id = ?').run(labelId);
}
