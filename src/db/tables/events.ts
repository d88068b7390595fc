import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export type EventTargetType = 'Issue' | 'MergeRequest' | 'Milestone' | 'Note' | 'DiffNote' | 'DiscussionNote' | 'Project' | 'Epic' | 'WikiPage';

/** Deletes the events about these targets, as GitLab's `has_many :events, as: :target, dependent: :delete_all` does. */
export function deleteEventsOfTargets(db: Db, type: EventTargetType, targetIds: readonly number[]): void {
  prepare(db, 'DELETE FROM events WHERE target_type = ? AND target_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(targetIds));
}
