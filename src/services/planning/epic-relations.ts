import type { Db } from '../../db/connection.js';
import { voteCounts } from '../../db/tables/award-emoji.js';
import type { EpicRow } from '../../db/tables/epics.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import { namespacesByIds, usersByIds } from '../../db/tables/project-relations.js';
import type { EpicRelations } from '../../entities/epics.js';

/** What the epic views need for a page of epics: authors, labels, group paths and votes, one query per kind. */
export function loadEpicRelations(db: Db, rows: readonly EpicRow[]): EpicRelations {
  const ids = rows.map((row) => row.id);
  return {
    users: usersByIds(db, [...new Set(rows.map((row) => row.author_id))]),
    labels: labelsOfTargets(db, 'Epic', ids),
    groupPaths: new Map([...namespacesByIds(db, [...new Set(rows.map((row) => row.group_id))]).values()].map((group) => [group.id, group.full_path])),
    votes: voteCounts(db, 'Epic', ids),
  };
}
