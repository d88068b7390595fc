import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { IssueRow } from '../../db/tables/issues.js';
import type { LabelRow } from '../../db/tables/labels.js';
import { explicitSubscription, setSubscription, subscribedIds } from '../../db/tables/subscriptions.js';
import { AppError } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { issueParticipable, takesPart, type Participable } from './participants.js';

/** Whether the actor follows the issue or merge request: their explicit choice, else whether they take part in it (GitLab's Subscribable). */
export function isSubscribed(db: Db, actor: Actor, subject: Participable): boolean {
  return explicitSubscription(db, actor.user.id, subject.type, subject.row.id, null) ?? takesPart(db, actor.user, subject);
}

/** Subscribes or unsubscribes the actor to the issue or merge request; 304 when that is already so (lib/api/subscriptions.rb). */
export function setSubscribed(db: Db, actor: Actor, subject: Participable, subscribed: boolean): void {
  inTransaction(db, () => {
    if (isSubscribed(db, actor, subject) === subscribed) throw new AppError('not_modified');
    setSubscription(db, actor.user.id, subject.type, subject.row.id, null, subscribed, nowIso());
  });
}

export const isIssueSubscribed = (db: Db, actor: Actor, issue: IssueRow, assigneeIds: readonly number[]): boolean => isSubscribed(db, actor, issueParticipable(issue, assigneeIds));

export const setIssueSubscription = (db: Db, actor: Actor, issue: IssueRow, assigneeIds: readonly number[], subscribed: boolean): void => setSubscribed(db, actor, issueParticipable(issue, assigneeIds), subscribed);

/** Of these labels, those the user follows site-wide or, given a project, in that project. */
export function subscribedLabelIds(db: Db, actor: Actor | null, labels: readonly LabelRow[], projectId: number | null): Set<number> {
  if (!actor) return new Set();
  return subscribedIds(
    db,
    actor.user.id,
    'Label',
    labels.map((label) => label.id),
    projectId,
  );
}

/**
 * Follows a label, site-wide (from a group's routes) or in one project (from a project's); 304
 * when the actor already follows it. Unfollowing turns every level off (site-wide and per
 * project), as GitLab's Subscribable#unsubscribe does, so the label no longer shows as followed.
 */
export function setLabelSubscription(db: Db, actor: Actor, label: LabelRow, projectId: number | null, subscribed: boolean): void {
  inTransaction(db, () => {
    const current = subscribedLabelIds(db, actor, [label], projectId).has(label.id);
    if (current === subscribed) throw new AppError('not_modified');
    const now = nowIso();
    setSubscription(db, actor.user.id, 'Label', label.id, projectId, subscribed, now);
    if (!subscribed && projectId !== null) setSubscription(db, actor.user.id, 'Label', label.id, null, false, now);
  });
}
