import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { explicitSubscription, setSubscription } from '../../db/tables/subscriptions.js';
import { AppError } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { isMergeRequestParticipant } from './participants.js';

/** Whether the actor follows the merge request: their explicit choice, else whether they take part in it (GitLab's Subscribable). */
export function isMergeRequestSubscribed(db: Db, actor: Actor, mergeRequest: MergeRequestRow): boolean {
  return explicitSubscription(db, actor.user.id, 'MergeRequest', mergeRequest.id, null) ?? isMergeRequestParticipant(db, actor.user, mergeRequest);
}

/** Subscribes or unsubscribes the actor; 304 when that is already so (lib/api/subscriptions.rb). */
export function setMergeRequestSubscription(db: Db, actor: Actor, mergeRequest: MergeRequestRow, subscribed: boolean): void {
  inTransaction(db, () => {
    if (isMergeRequestSubscribed(db, actor, mergeRequest) === subscribed) throw new AppError('not_modified');
    setSubscription(db, actor.user.id, 'MergeRequest', mergeRequest.id, null, subscribed, nowIso());
  });
}
