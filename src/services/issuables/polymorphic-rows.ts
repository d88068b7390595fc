import type { Db } from '../../db/connection.js';
import { deleteAwardsOf } from '../../db/tables/award-emoji.js';
import { deleteEventsOfTargets } from '../../db/tables/events.js';
import { deleteLabelLinksOfTargets } from '../../db/tables/label-links.js';
import { deleteNotesOf, noteIdsOf } from '../../db/tables/notes.js';
import { deleteSubscriptionsOf } from '../../db/tables/subscriptions.js';
import { deleteTodosOfTargets } from '../../db/tables/todos.js';

/** The note types whose events name a note of an issue, a merge request or an epic (epics have no diff notes). */
const NOTE_EVENT_TYPES = {
  Issue: ['Note', 'DiscussionNote', 'DiffNote'],
  MergeRequest: ['Note', 'DiscussionNote', 'DiffNote'],
  Epic: ['Note', 'DiscussionNote'],
} as const;

/**
 * Deletes what points at issues, merge requests or epics by type and id, which no foreign key
 * removes: notes (with their award emoji and events), label links, award emoji, todos,
 * subscriptions and events. Runs in the caller's transaction, before the rows themselves go.
 */
export function deletePolymorphicRows(db: Db, type: keyof typeof NOTE_EVENT_TYPES, ids: readonly number[]): void {
  const noteIds = noteIdsOf(db, type, ids);
  if (noteIds.length) {
    deleteAwardsOf(db, 'Note', noteIds);
    for (const noteType of NOTE_EVENT_TYPES[type]) deleteEventsOfTargets(db, noteType, noteIds);
    deleteNotesOf(db, type, ids);
  }
  deleteLabelLinksOfTargets(db, type, ids);
  deleteAwardsOf(db, type, ids);
  deleteTodosOfTargets(db, type, ids);
  deleteSubscriptionsOf(db, type, ids);
  deleteEventsOfTargets(db, type, ids);
}
