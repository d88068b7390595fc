import type { AwardTarget } from '../../services/issuables/award-emoji.js';
import { issueNoteable, type Noteable } from '../../services/issuables/noteables.js';
import { getNote } from '../../services/issuables/notes.js';
import { loadProject, projectOf, requireAbility, signedIn } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { valueGuard, type ValueGuard } from '../middleware/value-guards.js';
import { paged } from '../pagination.js';
import type { Guard, Route } from '../routes.js';
import { awardHandlers, awardId } from './award-emoji.js';
import { issueIid, namedIssue } from './issue-guards.js';
import { awardEmojiParams, discussionNoteUpdateParams, discussionResolveParams, noteCreateParams, noteListParams, noteUpdateParams } from './note-params.js';
import { noteHandlers, noteId } from './notes.js';
import { eventId, resourceEventHandlers, weightEventHandlers } from './resource-events.js';

/** One kind of noteable as its routes address it: the path of one, the guards that load it (400, 404), and the noteable they yield. */
export interface NoteableScope {
  readonly base: string;
  readonly load: readonly Guard[];
  readonly noteable: ValueGuard<Noteable>;
  /** Guards that run before any other, signedIn included (the ee gate of epics). */
  readonly gate?: readonly Guard[];
  /** Whether the kind has the resource label, milestone and state event APIs (issues do; epics do not here). */
  readonly resourceEvents: boolean;
  /** Whether its threads resolve as a whole (PUT .../discussions/:discussion_id `resolved`): merge requests. */
  readonly resolvableDiscussions?: boolean;
}

/**
 * The notes, discussions, award emoji and resource event routes of one kind of noteable (issue 14, items 4-5;
 * merge requests reuse them with their own scope, api/merge-requests/index.ts). Every row is for signed-in callers (401, as
 * GitLab's notes, discussions and award emoji APIs `authenticate!` first), then reads its
 * parameters (400), then loads the noteable (404, a confidential issue the caller may not read
 * included); who may write (403, a locked discussion) is asked by the services.
 */
export function noteableRoutes(scope: NoteableScope): Route[] {
  const { base, load, noteable } = scope;
  const gate = scope.gate ?? [];
  const notes = noteHandlers(noteable);
  const noteAward: ValueGuard<AwardTarget> = valueGuard('noteAwardTarget', (ctx, req) => {
    const subject = noteable.of(req);
    return { noteable: subject, note: getNote(ctx.db, subject, noteId.of(req)) };
  });
  const ownAward: ValueGuard<AwardTarget> = valueGuard('awardTarget', (_ctx, req) => ({ noteable: noteable.of(req), note: null }));
  const awards = awardHandlers(ownAward);
  const noteAwards = awardHandlers(noteAward);
  const events = resourceEventHandlers(noteable);
  const discussion = `${base}/discussions/:discussion_id`;
  const routes: Route[] = [
    { method: 'get', path: `${base}/notes`, guards: [...gate, signedIn, noteListParams, ...load], handler: notes.list },
    { method: 'post', path: `${base}/notes`, guards: [...gate, signedIn, noteCreateParams, ...load], handler: notes.create },
    { method: 'get', path: `${base}/notes/:note_id`, guards: [...gate, signedIn, noteId, ...load], handler: notes.show },
    { method: 'put', path: `${base}/notes/:note_id`, guards: [...gate, signedIn, noteId, noteUpdateParams, ...load], handler: notes.update },
    { method: 'delete', path: `${base}/notes/:note_id`, guards: [...gate, signedIn, noteId, ...load], handler: notes.remove },

    { method: 'get', path: `${base}/discussions`, guards: [...gate, signedIn, ...load, paged], handler: notes.listDiscussions },
    { method: 'post', path: `${base}/discussions`, guards: [...gate, signedIn, noteCreateParams, ...load], handler: notes.startDiscussion },
    { method: 'get', path: discussion, guards: [...gate, signedIn, ...load], handler: notes.showDiscussion },
    ...(scope.resolvableDiscussions ? [{ method: 'put' as const, path: discussion, guards: [...gate, signedIn, discussionResolveParams, ...load], handler: notes.resolveThread }] : []),
    { method: 'get', path: `${discussion}/notes`, guards: [...gate, signedIn, ...load], handler: notes.discussionNotes },
    { method: 'post', path: `${discussion}/notes`, guards: [...gate, signedIn, noteCreateParams, ...load], handler: notes.reply },
    { method: 'get', path: `${discussion}/notes/:note_id`, guards: [...gate, signedIn, noteId, ...load], handler: notes.show },
    { method: 'put', path: `${discussion}/notes/:note_id`, guards: [...gate, signedIn, noteId, discussionNoteUpdateParams, ...load], handler: notes.updateInDiscussion },
    { method: 'delete', path: `${discussion}/notes/:note_id`, guards: [...gate, signedIn, noteId, ...load], handler: notes.remove },

    { method: 'get', path: `${base}/award_emoji`, guards: [...gate, signedIn, ...load, ownAward, paged], handler: awards.list },
    { method: 'post', path: `${base}/award_emoji`, guards: [...gate, signedIn, awardEmojiParams, ...load, ownAward], handler: awards.create },
    { method: 'get', path: `${base}/award_emoji/:award_id`, guards: [...gate, signedIn, awardId, ...load, ownAward], handler: awards.show },
    { method: 'delete', path: `${base}/award_emoji/:award_id`, guards: [...gate, signedIn, awardId, ...load, ownAward, unmodifiedSince], handler: awards.remove },
    { method: 'get', path: `${base}/notes/:note_id/award_emoji`, guards: [...gate, signedIn, noteId, ...load, noteAward, paged], handler: noteAwards.list },
    { method: 'post', path: `${base}/notes/:note_id/award_emoji`, guards: [...gate, signedIn, noteId, awardEmojiParams, ...load, noteAward], handler: noteAwards.create },
    { method: 'get', path: `${base}/notes/:note_id/award_emoji/:award_id`, guards: [...gate, signedIn, noteId, awardId, ...load, noteAward], handler: noteAwards.show },
    { method: 'delete', path: `${base}/notes/:note_id/award_emoji/:award_id`, guards: [...gate, signedIn, noteId, awardId, ...load, noteAward, unmodifiedSince], handler: noteAwards.remove },
  ];
  if (!scope.resourceEvents) return routes;
  return [
    ...routes,
    { method: 'get', path: `${base}/resource_label_events`, guards: [...gate, signedIn, ...load, paged], handler: events.label.list },
    { method: 'get', path: `${base}/resource_label_events/:event_id`, guards: [...gate, signedIn, eventId, ...load], handler: events.label.show },
    { method: 'get', path: `${base}/resource_milestone_events`, guards: [...gate, signedIn, ...load, paged], handler: events.milestone.list },
    { method: 'get', path: `${base}/resource_milestone_events/:event_id`, guards: [...gate, signedIn, eventId, ...load], handler: events.milestone.show },
    { method: 'get', path: `${base}/resource_state_events`, guards: [...gate, signedIn, ...load, paged], handler: events.state.list },
    { method: 'get', path: `${base}/resource_state_events/:event_id`, guards: [...gate, signedIn, eventId, ...load], handler: events.state.show },
  ];
}

/** An issue the caller may read, as a noteable: `404 Issue Not Found` otherwise, as GitLab's find_noteable answers. */
const issueAsNoteable = valueGuard('issueNoteable', (_ctx, req) => issueNoteable(projectOf(req), namedIssue.of(req).issue));

const issueLoad = [issueIid, loadProject(), requireAbility('read_issue'), namedIssue, issueAsNoteable];
const weights = weightEventHandlers(issueAsNoteable);

/** The notes, discussions, award emoji and resource events of issues, weight events (issues only) included. */
export const issueNoteRoutes: readonly Route[] = [
  ...noteableRoutes({ base: '/projects/:id/issues/:issue_iid', load: issueLoad, noteable: issueAsNoteable, resourceEvents: true }),
  { method: 'get', path: '/projects/:id/issues/:issue_iid/resource_weight_events', guards: [signedIn, ...issueLoad, paged], handler: weights.list },
  { method: 'get', path: '/projects/:id/issues/:issue_iid/resource_weight_events/:event_id', guards: [signedIn, eventId, ...issueLoad], handler: weights.show },
];
