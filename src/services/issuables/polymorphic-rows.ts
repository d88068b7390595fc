import type { Db } from '../../db/connection.js';
import { deleteAwardsOf } from '../../db/tables/award-emoji.js';
import { deleteEventsOfTargets } from '../../db/tables/events.js';
import { deleteLabelLinksOfTargets } from '../../db/tables/label-links.js';
import { deleteNotesOf, noteIdsOf } from '../../db/tables/notes.js';
import { deleteSubscriptionsOf } from '../../db/tables/subscriptions.js';
import { deleteTodosOfTargets } from '../../db/tables/todos.js';

const NOTE_TYPES = ['Note', 'DiscussionNote', 'DiffNote'] as const;

/** The note types whose events name a note of an issue, a merge request or an epic (epics have no diff notes). */
const NOTE_TYPES_OF = { Issue: NOTE_TYPES, MergeRequest: NOTE_TYPES, Epic: ['Note', 'DiscussionNote'] } as const;

/** Deletes the award emoji and the events of notes (of `noteTypes`), which no foreign key removes. */
export function deleteNoteAwardsAndEvents(db: Db, noteIds: readonly number[], noteTypes: readonly (typeof NOTE_TYPES)[number][] = NOTE_TYPES): void {
  deleteAwardsOf(db, 'Note', noteIds);
  for (const type of noteTypes) deleteEventsOfTargets(db, type, noteIds);
}

/**
 * Deletes what points at issues, merge requests or epics by type and id, which no foreign key
 * removes: notes (with their award emoji and events), label links, award emoji, todos,
 * subscriptions and events. Runs in the caller's transaction, before the rows themselves go.
 */
export function deletePolymorphicRows(db: Db, type: keyof typeof NOTE_TYPES_OF, ids: readonly number[]): void {
  const noteIds = noteIdsOf(db, type, ids);
  if (noteIds.length) {
    deleteNoteAwardsAndEvents(db, noteIds, NOTE_TYPES_OF[type]);
    deleteNotesOf(db, type, ids);
  }
  deleteLabelLinksOfTargets(db, type, ids);
  deleteAwardsOf(db, type, ids);
  deleteTodosOfTargets(db, type, ids);
  deleteSubscriptionsOf(db, type, ids);
  deleteEventsOfTargets(db, type, ids);
}
