import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { LabelRow } from './labels.js';

export type LabelTargetType = 'Issue' | 'MergeRequest' | 'Epic';

/** The labels of each target, sorted by title as GitLab shows them. */
export function labelsOfTargets(db: Db, type: LabelTargetType, targetIds: readonly number[]): Map<number, LabelRow[]> {
  const out = new Map<number, LabelRow[]>();
  if (!targetIds.length) return out;
  const rows = prepare(
    db,
    `SELECT ll.target_id AS linked_target_id, l.* FROM label_links ll JOIN labels l ON l.id = ll.label_id
     WHERE ll.target_type = ? AND ll.target_id IN (SELECT value FROM json_each(?)) ORDER BY l.title, l.id`,
  ).all(type, JSON.stringify(targetIds)) as (LabelRow & { linked_target_id: number })[];
  for (const { linked_target_id: targetId, ...label } of rows) {
    const list = out.get(targetId);
    if (list) list.push(label);
    else out.set(targetId, [label]);
  }
  return out;
}

export function addLabelLink(db: Db, type: LabelTargetType, targetId: number, labelId: number, now: string): void {
  prepare(db, 'INSERT OR IGNORE INTO label_links (label_id, target_type, target_id, created_at) VALUES (?, ?, ?, ?)').run(labelId, type, targetId, now);
}

export function removeLabelLink(db: Db, type: LabelTargetType, targetId: number, labelId: number): void {
  prepare(db, 'DELETE FROM label_links WHERE target_type = ? AND target_id = ? AND label_id = ?').run(type, targetId, labelId);
}

/** Deletes the links of these targets (label links do not cascade from their polymorphic target). */
export function deleteLabelLinksOfTargets(db: Db, type: LabelTargetType, targetIds: readonly number[]): void {
  prepare(db, 'DELETE FROM label_links WHERE target_type = ? AND target_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(targetIds));
}

/** Deletes every link of a label, as a captured write before the label itself goes. */
export function deleteLabelLinksOfLabel(db: Db, labelId: number): void {
  prepare(db, 'DELETE FROM label_links WHERE label_id = ?').run(labelId);
}

/** Re-points the links of one label at another; a target that already has the other keeps one link. */
export function moveLabelLinks(db: Db, fromLabelId: number, toLabelId: number): void {
  prepare(
    db,
    `DELETE FROM label_links WHERE label_id = @from AND EXISTS (
       SELECT 1 FROM label_links o WHERE o.label_id = @to AND o.target_type = label_links.target_type AND o.target_id = label_links.target_id)`,
  ).run({ from: fromLabelId, to: toLabelId });
  prepare(db, 'UPDATE label_links SET label_id = ? WHERE label_id = ?').run(toLabelId, fromLabelId);
}

/**
 * Open and closed issues carrying each label, counting only issues `i` (of projects `p`) that
 * `readable` lets through: the caller's visibility rule, as SQL with its named parameters.
 */
export function issueCountsOfLabels(
  db: Db,
  labelIds: readonly number[],
  readable: { readonly sql: string; readonly params: Record<string, unknown> },
): Map<number, { opened: number; closed: number }> {
  if (!labelIds.length) return new Map();
  const rows = prepare(
    db,
    `SELECT ll.label_id AS id, sum(i.state = 'opened') AS opened, sum(i.state = 'closed') AS closed
     FROM label_links ll JOIN issues i ON i.id = ll.target_id JOIN projects p ON p.id = i.project_id
     WHERE ll.target_type = 'Issue' AND ll.label_id IN (SELECT value FROM json_each(@label_ids)) AND ${readable.sql}
     GROUP BY ll.label_id`,
  ).all({ ...readable.params, label_ids: JSON.stringify(labelIds) }) as { id: number; opened: number; closed: number }[];
  return new Map(rows.map((row) => [row.id, { opened: row.opened, closed: row.closed }]));
}

/** The open merge requests each label is on, counting only those `readable` lets through (its SQL reads `m` and the target project `p`). */
export function openMergeRequestCountsOfLabels(db: Db, labelIds: readonly number[], readable: { readonly sql: string; readonly params: Record<string, unknown> }): Map<number, number> {
  if (!labelIds.length) return new Map();
  const rows = prepare(
    db,
    `SELECT ll.label_id AS id, count(*) AS opened
     FROM label_links ll JOIN merge_requests m ON m.id = ll.target_id JOIN projects p ON p.id = m.target_project_id
     WHERE ll.target_type = 'MergeRequest' AND ll.label_id IN (SELECT value FROM json_each(@label_ids)) AND m.state = 'opened' AND ${readable.sql}
     GROUP BY ll.label_id`,
  ).all({ ...readable.params, label_ids: JSON.stringify(labelIds) }) as { id: number; opened: number }[];
  return new Map(rows.map((row) => [row.id, row.opened]));
}
