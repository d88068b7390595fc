import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { countUpTo, type Page, type Paged } from '../page.js';

/** GitLab's event actions, as the events table stores them. */
export const EVENT_ACTIONS = ['created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired', 'approved'] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

/** What an event can be about; NULL for a project's own events (created, joined, left) and group membership. */
export const EVENT_TARGET_TYPES = ['Issue', 'MergeRequest', 'Milestone', 'Note', 'DiffNote', 'DiscussionNote', 'Project', 'Epic', 'WikiPage'] as const;
export type EventTargetType = (typeof EVENT_TARGET_TYPES)[number];

export interface EventRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  author_id: number;
  action: EventAction;
  target_type: EventTargetType | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  /** A push's payload as JSON (GitLab's push_event_payloads row). */
  push_data: string | null;
  created_at: string;
  updated_at: string;
}

export type NewEvent = Omit<EventRow, 'id' | 'updated_at'>;

export function insertEvent(db: Db, event: NewEvent): number {
  return Number(
    prepare(
      db,
      `INSERT INTO events (project_id, group_id, author_id, action, target_type, target_id, target_iid, target_title, push_data, created_at, updated_at)
       VALUES (@project_id, @group_id, @author_id, @action, @target_type, @target_id, @target_iid, @target_title, @push_data, @created_at, @created_at)`,
    ).run(event).lastInsertRowid,
  );
}

/**
 * Deletes the events about these targets, as GitLab's `has_many :events, as: :target,
 * dependent: :delete_all` does: events are polymorphic and do not cascade from their target, so
 * the service deleting targets calls this in the same transaction (index events_target).
 */
export function deleteEventsOfTargets(db: Db, type: EventTargetType, targetIds: readonly number[]): void {
  prepare(db, 'DELETE FROM events WHERE target_type = ? AND target_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(targetIds));
}

/** Hands every event of one author to another (a deleted user's to the ghost user). */
export function moveEventsToAuthor(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE events SET author_id = ? WHERE author_id = ?').run(toUserId, fromUserId);
}

/** Whose events a list reads: one author's (index events_author) or one project's (events_project). */
export type EventSource = { author: number } | { project: number };

/**
 * Which events of the source the reader may see, in SQL (GitLab's by_current_user_access):
 * `all` for admins and for a project the reader already may see; otherwise events of projects
 * visible at `minVisibility` or listed by `authorizedProjects` (SQL over @user and @today), group
 * events of groups visible at `minVisibility` or listed by `memberGroups`, and events of
 * neither (a destroyed project) to their author alone. Anonymous readers have a null user.
 */
export type EventReach =
  | { kind: 'all' }
  | { kind: 'visible'; user: number | null; today: string; minVisibility: number; authorizedProjects: string; memberGroups: string };

export interface EventFilter {
  action?: EventAction;
  targetTypes?: readonly EventTargetType[];
  /** created_at strictly before / after these ISO times. */
  createdBefore?: string;
  createdAfter?: string;
  sort: 'asc' | 'desc';
}

/**
 * One page of events, newest first unless `sort` is asc, paged in SQL. The order is the id,
 * which the source's index (author_id, id) or (project_id, id) already holds: a page reads its
 * rows off the index, and the visibility test joins projects and namespaces by primary key.
 */
export function selectEvents(db: Db, source: EventSource, reach: EventReach, filter: EventFilter, page: Page): Paged<EventRow> {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if ('author' in source) {
    where.push('e.author_id = @source');
    params.source = source.author;
  } else {
    where.push('e.project_id = @source');
    params.source = source.project;
  }
  if (reach.kind === 'visible') {
    const user = reach.user === null ? '0' : '@user';
    where.push(`(
      (e.project_id IS NOT NULL AND EXISTS (SELECT 1 FROM projects p WHERE p.id = e.project_id
        AND (p.visibility_level >= @min_visibility${reach.user === null ? '' : ` OR p.id IN (${reach.authorizedProjects})`})))
      OR (e.project_id IS NULL AND e.group_id IS NOT NULL AND EXISTS (SELECT 1 FROM namespaces g WHERE g.id = e.group_id
        AND (g.visibility_level >= @min_visibility${reach.user === null ? '' : ` OR g.id IN (${reach.memberGroups})`})))
      OR (e.project_id IS NULL AND e.group_id IS NULL AND e.author_id = ${user}))`);
    params.min_visibility = reach.minVisibility;
    if (reach.user !== null) {
      params.user = reach.user;
      params.today = reach.today;
    }
  }
  if (filter.action !== undefined) {
    where.push('e.action = @action');
    params.action = filter.action;
  }
  if (filter.targetTypes) {
    where.push('e.target_type IN (SELECT value FROM json_each(@target_types))');
    params.target_types = JSON.stringify(filter.targetTypes);
  }
  if (filter.createdBefore !== undefined) {
    where.push('e.created_at < @before');
    params.before = filter.createdBefore;
  }
  if (filter.createdAfter !== undefined) {
    where.push('e.created_at > @after');
    params.after = filter.createdAfter;
  }
  const fromWhere = `FROM events e WHERE ${where.join(' AND ')}`;
  const rows = prepare(db, `SELECT e.* ${fromWhere} ORDER BY e.id ${filter.sort === 'asc' ? 'ASC' : 'DESC'} LIMIT @limit OFFSET @offset`).all({
    ...params,
    limit: page.perPage,
    offset: page.offset,
  }) as EventRow[];
  return { rows, total: countUpTo(db, fromWhere, [params]) };
}
