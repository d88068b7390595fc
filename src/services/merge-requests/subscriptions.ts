import type { Db } from '../../db/connection.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { isSubscribed, setSubscribed } from '../issuables/subscriptions.js';
import type { Actor } from '../users/authentication.js';
import { mergeRequestParticipable } from './participants.js';

export const isMergeRequestSubscribed = (db: Db, actor: Actor, mergeRequest: MergeRequestRow): boolean => isSubscribed(db, actor, mergeRequestParticipable(mergeRequest));

export const setMergeRequestSubscription = (db: Db, actor: Actor, mergeRequest: MergeRequestRow, subscribed: boolean): void => setSubscribed(db, actor, mergeRequestParticipable(mergeRequest), subscribed);
