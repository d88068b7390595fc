import type { Db } from '../../db/connection.js';
import type { Page } from '../../db/page.js';
import { AUTHORIZED_PROJECT_IDS, MEMBER_GROUP_IDS, projectAccessLevels } from '../../db/tables/access.js';
import { selectEvents, type EventFilter, type EventReach, type EventRow, type EventSource } from '../../db/tables/events.js';
import { assigneeIdsOfIssues } from '../../db/tables/issue-assignees.js';
import { issuesByIds } from '../../db/tables/issues.js';
import { notesByIds } from '../../db/tables/notes.js';
import { projectsByIds, usersByIds } from '../../db/tables/project-relations.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { ACCESS } from '../../db/levels.js';
import type { EventRelations } from '../../entities/events.js';
import { today } from '../../storage/clock.js';
import { canReadProjectEvent, isAdmin, lowestVisibleWithoutMembership, type EventSubject } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

export interface EventPage {
  readonly rows: EventRow[];
  /** Counted before the per-event rules (as GitLab counts); null past the count cap. */
  readonly total: number | null;
  readonly relations: EventRelations;
}

const NOTE_TYPES = new Set(['Note', 'DiscussionNote', 'DiffNote']);

/**
 * A user's contribution events the actor may see (GET /events for their own, GET /users/:id/events):
 * those of projects and groups the actor can see, and project-less ones (a destroyed project)
 * to their author. Admins see all.
 */
export function listUserEvents(db: Db, actor: Actor | null, userId: number, filter: EventFilter, page: Page): EventPage {
  return listEvents(db, actor, { author: userId }, reachOf(actor), filter, page);
}

/** A project's events the actor may see; the caller has already found the project visible (loadProject). */
export function listProjectEvents(db: Db, actor: Actor | null, project: ProjectRow, filter: EventFilter, page: Page): EventPage {
  return listEvents(db, actor, { project: project.id }, { kind: 'all' }, filter, page);
}

function reachOf(actor: Actor | null): EventReach {
  if (isAdmin(actor)) return { kind: 'all' };
  return {
    kind: 'visible',
    user: actor?.user.id ?? null,
    today: today(),
    minVisibility: lowestVisibleWithoutMembership(actor),
    authorizedProjects: AUTHORIZED_PROJECT_IDS,
    memberGroups: MEMBER_GROUP_IDS,
  };
}

/**
 * The page in SQL, its relations one query per kind, then GitLab's per-event rule
 * (Event#visible_to_user?, after paging as GitLab applies it): a push needs the code, an issue's
 * event the issue (confidential ones stay with who may read them), and an event whose target is
 * gone is not shown.
 */
function listEvents(db: Db, actor: Actor | null, source: EventSource, reach: EventReach, filter: EventFilter, page: Page): EventPage {
  const { rows, total } = selectEvents(db, source, reach, filter, page);
  const notes = notesByIds(db, idsOf(rows, (row) => (row.target_type && NOTE_TYPES.has(row.target_type) ? row.target_id : null)));
  const issueIds = [
    ...idsOf(rows, (row) => (row.target_type === 'Issue' ? row.target_id : null)),
    ...[...notes.values()].flatMap((note) => (note.noteable_type === 'Issue' && note.noteable_id !== null ? [note.noteable_id] : [])),
  ];
  const issues = new Map(issuesByIds(db, [...new Set(issueIds)]).map((issue) => [issue.id, issue]));
  const assignees = assigneeIdsOfIssues(db, [...issues.values()].filter((issue) => issue.confidential).map((issue) => issue.id));
  const projectIds = idsOf(rows, (row) => row.project_id);
  const projects = projectsByIds(db, projectIds);
  const levels = actor && !isAdmin(actor) ? projectAccessLevels(db, actor.user.id, projectIds, today()) : null;
  const accessOn = (projectId: number) => () => (!actor ? ACCESS.none : levels === null ? ACCESS.owner : (levels.get(projectId) ?? ACCESS.none));

  const visible = rows.filter((row) => {
    if (row.project_id === null) return true;
    const project = projects.get(row.project_id);
    const subject = project && subjectOf(row, notes, issues, assignees);
    return !!subject && canReadProjectEvent(db, actor, project, subject, accessOn(row.project_id));
  });
  const userIds = visible.map((row) => row.author_id);
  for (const note of notes.values()) userIds.push(note.author_id, ...(note.resolved_by_id === null ? [] : [note.resolved_by_id]));
  const users = usersByIds(db, userIds);
  return { rows: visible, total, relations: { users, projects, notes, issues } };
}

const idsOf = (rows: readonly EventRow[], id: (row: EventRow) => number | null): number[] => rows.flatMap((row) => (id(row) === null ? [] : [id(row)!]));

/** What a project's event shows, or null when its target is gone (GitLab shows such an event to nobody). */
function subjectOf(row: EventRow, notes: EventRelations['notes'], issues: EventRelations['issues'], assignees: ReadonlyMap<number, number[]>): EventSubject | null {
  if (row.action === 'pushed') return { kind: 'code' };
  const issueSubject = (id: number | null): EventSubject | null => {
    const issue = id === null ? undefined : issues.get(id);
    return issue ? { kind: 'issue', issue: { ...issue, assigneeIds: assignees.get(issue.id) ?? [] } } : null;
  };
  switch (row.target_type) {
    case null:
    case 'Project':
    case 'Milestone':
    case 'WikiPage':
    case 'Epic':
      return { kind: 'project' };
    case 'Issue':
      return issueSubject(row.target_id);
    case 'MergeRequest':
      return { kind: 'merge_request' };
    case 'Note':
    case 'DiscussionNote':
    case 'DiffNote': {
      const note = row.target_id === null ? undefined : notes.get(row.target_id);
      if (!note) return null;
      if (note.noteable_type === 'Issue') return issueSubject(note.noteable_id);
      if (note.noteable_type === 'MergeRequest') return { kind: 'merge_request' };
      if (note.noteable_type === 'Commit') return { kind: 'code' };
      return { kind: 'project' };
    }
  }
}
