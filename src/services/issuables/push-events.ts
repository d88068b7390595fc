import type { Db } from '../../db/connection.js';
import { isBlankSha } from '../../git/object-names.js';
import { nowIso } from '../../storage/clock.js';
import { writeEvent } from './record-events.js';

/** One ref a push moved, with what its event shows of the commits it brought. */
export interface PushedRef {
  /** The full ref name, `refs/heads/...` or `refs/tags/...`. */
  readonly ref: string;
  readonly before: string;
  readonly after: string;
  /** How many commits the push brought to the ref (a tag: its commit, if any). */
  readonly commitCount: number;
  /** The message of the newest of them; null when there are none. */
  readonly headMessage: string | null;
}

/** GitLab's push_event_payloads row, stored as the event's push_data and shown as is. */
interface PushData {
  commit_count: number;
  action: 'created' | 'removed' | 'pushed';
  ref_type: 'branch' | 'tag';
  commit_from: string | null;
  commit_to: string | null;
  ref: string | null;
  commit_title: string | null;
  /** Refs a bulk push event stands for; null on a single ref's event. */
  ref_count: number | null;
}

/**
 * Above this many refs of one type changed the same way (created, removed, pushed) in one push,
 * GitLab writes one bulk event for them instead of one per ref (push_event_activities_limit,
 * default 3).
 */
const PUSH_EVENT_ACTIVITIES_LIMIT = 3;

/** GitLab's commit title: the message's first line, stripped, cut to 70 characters with an ellipsis. */
function commitTitle(message: string | null): string | null {
  if (message === null) return null;
  const newline = message.indexOf('\n');
  const line = (newline < 0 ? message : message.slice(0, newline)).trim();
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}

const actionOf = (ref: PushedRef): PushData['action'] => (isBlankSha(ref.before) ? 'created' : isBlankSha(ref.after) ? 'removed' : 'pushed');
const refTypeOf = (ref: string): PushData['ref_type'] => (ref.startsWith('refs/tags/') ? 'tag' : 'branch');
const shortRef = (ref: string) => ref.replace(/^refs\/(heads|tags)\//, '');

/** The payload of one ref's push event (GitLab's PushEventPayloadService). */
function pushData(ref: PushedRef): PushData {
  const action = actionOf(ref);
  return {
    commit_count: ref.commitCount,
    action,
    ref_type: refTypeOf(ref.ref),
    commit_from: action === 'created' ? null : ref.before,
    commit_to: action === 'removed' ? null : ref.after,
    ref: shortRef(ref.ref),
    commit_title: commitTitle(ref.headMessage),
    ref_count: null,
  };
}

/**
 * Records a push by `authorId`: one `pushed` event per branch or tag it moved, or, where more
 * than PUSH_EVENT_ACTIVITIES_LIMIT refs of a type changed the same way, one bulk event for them
 * (GitLab's BulkPushEventPayloadService: the count of refs, no commits). Called in the push's
 * follow-up transaction.
 */
export function recordPushEvents(db: Db, authorId: number, projectId: number, refs: readonly PushedRef[], at = nowIso()): void {
  const groups = new Map<string, PushedRef[]>();
  for (const ref of refs) {
    if (!ref.ref.startsWith('refs/heads/') && !ref.ref.startsWith('refs/tags/')) continue;
    const key = `${refTypeOf(ref.ref)} ${actionOf(ref)}`;
    groups.set(key, [...(groups.get(key) ?? []), ref]);
  }
  for (const group of groups.values()) {
    const payloads: PushData[] =
      group.length > PUSH_EVENT_ACTIVITIES_LIMIT
        ? [{ commit_count: 0, action: actionOf(group[0]), ref_type: refTypeOf(group[0].ref), commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: group.length }]
        : group.map(pushData);
    for (const payload of payloads) {
      writeEvent(db, {
        project_id: projectId,
        group_id: null,
        author_id: authorId,
        action: 'pushed',
        target_type: null,
        target_id: null,
        target_iid: null,
        target_title: null,
        push_data: JSON.stringify(payload),
        created_at: at,
      });
    }
  }
}
