import type { Db } from '../../db/connection.js';
import { addLabelLink, removeLabelLink } from '../../db/tables/label-links.js';
import type { LabelRow } from '../../db/tables/labels.js';

/** Makes the labels of an issue or a merge request exactly `labels` (links added first, then removed); returns those added and removed. */
export function replaceLabelLinks(db: Db, type: 'Issue' | 'MergeRequest', targetId: number, current: readonly LabelRow[], labels: readonly LabelRow[], now: string) {
  const added = labels.filter((label) => !current.some((old) => old.id === label.id));
  const removed = current.filter((old) => !labels.some((label) => label.id === old.id));
  for (const label of added) addLabelLink(db, type, targetId, label.id, now);
  for (const label of removed) removeLabelLink(db, type, targetId, label.id);
  return { added, removed };
}
