import type { Db } from '../../db/connection.js';
import { insertEvent, type EventAction, type NewEvent } from '../../db/tables/events.js';
import { touchProjectActivity } from '../../db/tables/projects.js';
import { markUserActiveOn } from '../../db/tables/users.js';
import { nowIso } from '../../storage/clock.js';

/**
 * Event rows, GitLab's EventCreateService: every contribution writes one, in the transaction of
 * the change it records, on the primary (a secondary forwards the writes that make them). The
 * project's last_activity_at and the author's last_activity_on follow, as GitLab's do.
 */

/** GitLab touches a project's last_activity_at at most once an hour (Event::RESET_PROJECT_ACTIVITY_INTERVAL). */
const PROJECT_ACTIVITY_INTERVAL_MS = 60 * 60 * 1000;

/** An issue, merge request, milestone or epic, as its event keeps it: the iid and title clients show. */
export interface IssuableTarget {
  readonly type: 'Issue' | 'MergeRequest' | 'Milestone' | 'Epic';
  readonly id: number;
  readonly iid: number;
  readonly title: string;
}

/** A comment (plain, in a thread, or on a diff); the event shows its noteable's title. */
export interface NoteTarget {
  readonly type: 'Note' | 'DiscussionNote' | 'DiffNote';
  readonly id: number;
  readonly noteableTitle: string | null;
}

/**
 * A contribution to an issuable, by action: opened (`created`), closed, reopened; a merge request
 * merged or approved; a comment; a milestone destroyed. GitLab names them as the list shows:
 * "opened", "closed", "reopened", "accepted", "approved", "commented on", "destroyed".
 */
export type ContributionEvent =
  | { readonly action: 'created' | 'closed' | 'reopened'; readonly target: IssuableTarget }
  | { readonly action: 'merged' | 'approved'; readonly target: IssuableTarget & { readonly type: 'MergeRequest' } }
  | { readonly action: 'commented'; readonly target: NoteTarget }
  | { readonly action: 'destroyed'; readonly target: IssuableTarget & { readonly type: 'Milestone' } };

/** Where an event happened: a project, or a group (epics, group membership). */
export type EventScope = { readonly projectId: number } | { readonly groupId: number };

/**
 * Records a contribution to an issuable or a comment by `authorId` (the issue and merge request
 * services call this in their write transaction). Returns the event's id.
 */
export function recordEvent(db: Db, authorId: number, scope: EventScope, event: ContributionEvent, at = nowIso()): number {
  const { target } = event;
  const titles = 'noteableTitle' in target ? { target_iid: target.id, target_title: target.noteableTitle } : { target_iid: target.iid, target_title: target.title };
  return writeEvent(db, { ...scopeColumns(scope), author_id: authorId, action: event.action, target_type: target.type, target_id: target.id, ...titles, push_data: null, created_at: at });
}

/** A project created (or forked, or imported: the list calls that one "imported") by `authorId`. */
export function recordProjectCreated(db: Db, authorId: number, projectId: number, at = nowIso()): number {
  return writeEvent(db, { ...NO_TARGET, project_id: projectId, group_id: null, author_id: authorId, action: 'created', created_at: at });
}

/**
 * A project deleted by `authorId`. Its own events go with its row; this one names it by target
 * (`Project`, its old id and full path) and belongs to no project, so only its author and admins
 * see it.
 */
export function recordProjectDestroyed(db: Db, authorId: number, project: { readonly id: number; readonly fullPath: string }, at = nowIso()): number {
  return writeEvent(db, {
    project_id: null,
    group_id: null,
    author_id: authorId,
    action: 'destroyed',
    target_type: 'Project',
    target_id: project.id,
    target_iid: project.id,
    target_title: project.fullPath,
    push_data: null,
    created_at: at,
  });
}

/**
 * A user who became (`joined`) or stopped being (`left`) a member of a project or a group. The
 * member is the author, whoever added or removed them, as in GitLab; that is not the member's own
 * activity, so their last_activity_on stays.
 */
export function recordMembership(db: Db, userId: number, scope: EventScope, action: 'joined' | 'left', at = nowIso()): number {
  return writeEvent(db, { ...NO_TARGET, ...scopeColumns(scope), author_id: userId, action, created_at: at });
}

const NO_TARGET = { target_type: null, target_id: null, target_iid: null, target_title: null, push_data: null } as const;

const scopeColumns = (scope: EventScope) => ('projectId' in scope ? { project_id: scope.projectId, group_id: null } : { project_id: null, group_id: scope.groupId });

/** Membership changes happen to the author; everything else is the author's own doing. */
const AUTHORS_OWN: Readonly<Record<EventAction, boolean>> = {
  created: true,
  updated: true,
  closed: true,
  reopened: true,
  pushed: true,
  commented: true,
  merged: true,
  joined: false,
  left: false,
  destroyed: true,
  expired: false,
  approved: true,
};

/** Inserts the row, then moves the project's and the author's activity (both no-ops when already current). */
export function writeEvent(db: Db, event: NewEvent): number {
  const id = insertEvent(db, event);
  if (event.project_id !== null) {
    const since = new Date(Date.parse(event.created_at) - PROJECT_ACTIVITY_INTERVAL_MS).toISOString();
    touchProjectActivity(db, event.project_id, event.created_at, since);
  }
  if (AUTHORS_OWN[event.action]) markUserActiveOn(db, event.author_id, event.created_at.slice(0, 10));
  return id;
}
