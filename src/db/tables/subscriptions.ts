import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export type SubscribableType = 'Issue' | 'MergeRequest' | 'Epic' | 'Label';

/**
 * The user's explicit choice about one subject: true or false, or null when they never chose. A
 * label is followed site-wide (projectId null) or in one project; `projectId` reads the
 * project-wide choice alone, and null the site-wide one.
 */
export function explicitSubscription(db: Db, userId: number, type: SubscribableType, subjectId: number, projectId: number | null): boolean | null {
  const value = prepare(
    db,
    'SELECT subscribed FROM subscriptions WHERE subscribable_type = ? AND subscribable_id = ? AND user_id = ? AND IFNULL(project_id, 0) = IFNULL(?, 0)',
  )
    .pluck()
    .get(type, subjectId, userId, projectId) as number | undefined;
  return value === undefined ? null : value === 1;
}

/** Of these subjects, the ids the user follows, site-wide or (when given) in the project. */
export function subscribedIds(db: Db, userId: number, type: SubscribableType, subjectIds: readonly number[], projectId: number | null): Set<number> {
  if (!subjectIds.length) return new Set();
  const ids = prepare(
    db,
    `SELECT subscribable_id FROM subscriptions WHERE subscribable_type = ? AND subscribable_id IN (SELECT value FROM json_each(?)) AND user_id = ?
     AND subscribed = 1 AND (project_id IS NULL OR project_id = ?)`,
  )
    .pluck()
    .all(type, JSON.stringify(subjectIds), userId, projectId) as number[];
  return new Set(ids);
}

export function setSubscription(db: Db, userId: number, type: SubscribableType, subjectId: number, projectId: number | null, subscribed: boolean, now: string): void {
  prepare(
    db,
    `INSERT INTO subscriptions (user_id, subscribable_type, subscribable_id, project_id, subscribed, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (subscribable_type, subscribable_id, user_id, IFNULL(project_id, 0)) DO UPDATE SET subscribed = excluded.subscribed, updated_at = excluded.updated_at`,
  ).run(userId, type, subjectId, projectId, subscribed ? 1 : 0, now, now);
}

/** Deletes every subscription to these subjects (subscriptions do not cascade from their polymorphic subject). */
export function deleteSubscriptionsOf(db: Db, type: SubscribableType, subjectIds: readonly number[]): void {
  prepare(db, 'DELETE FROM subscriptions WHERE subscribable_type = ? AND subscribable_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(subjectIds));
}

/** Re-points subscriptions of one subject at another (a promoted label); a user already following the other keeps that row. */
export function moveSubscriptions(db: Db, type: SubscribableType, fromId: number, toId: number): void {
  prepare(
    db,
    `DELETE FROM subscriptions WHERE subscribable_type = @type AND subscribable_id = @from AND EXISTS (
       SELECT 1 FROM subscriptions o WHERE o.subscribable_type = @type AND o.subscribable_id = @to AND o.user_id = subscriptions.user_id
       AND IFNULL(o.project_id, 0) = IFNULL(subscriptions.project_id, 0))`,
  ).run({ type, from: fromId, to: toId });
  prepare(db, 'UPDATE subscriptions SET subscribable_id = ? WHERE subscribable_type = ? AND subscribable_id = ?').run(toId, type, fromId);
}
