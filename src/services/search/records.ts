import type { Db } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { PROJECT_TEAM_USER_IDS } from '../../db/tables/access.js';
import { groupTreeIds, selfAndAncestorGroupIds } from '../../db/tables/groups.js';
import type { IssueRow } from '../../db/tables/issues.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { MilestoneRow } from '../../db/tables/milestones.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { NoteRow } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { listIssues } from '../issuables/issue-lists.js';
import { listMergeRequests } from '../merge-requests/lists.js';
import { can, canReadMergeRequest, readableGroupsAnywhere, readableIssuesInProject, readableProjectsAnywhere, type SqlCondition } from '../permissions.js';
import { listProjects } from '../projects/lists.js';
import type { Actor } from '../users/authentication.js';
import { today } from '../../storage/clock.js';
import { textMatch } from './terms.js';

/** Where a search looks: everywhere the caller may read, in a group and its subgroups, or in one project (already found readable). */
export type SearchSource = { readonly everywhere: true } | { readonly group: NamespaceRow } | { readonly project: ProjectRow };

/** The issuable filters a search takes (GitLab 17 `state`, `confidential`, `order_by`, `sort`). */
export interface SearchFilters {
  readonly state?: 'opened' | 'closed' | 'merged' | 'all';
  readonly confidential?: boolean;
  readonly sort?: 'asc' | 'desc';
}

const empty = <T>(): Paged<T> => ({ rows: [], total: 0 });
const escapeLike = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** Projects whose name, path or description contains the text, among those the caller reads (a group's: its subgroups' too). */
export function searchProjects(db: Db, actor: Actor, source: Exclude<SearchSource, { project: ProjectRow }>, text: string, page: Page): Paged<ProjectRow> {
  const namespaceIds = 'group' in source ? groupTreeIds(db, source.group.id) : undefined;
  return listProjects(db, actor, { search: text, ...(namespaceIds ? { namespaceIds } : {}) }, page);
}

/** Issues matching the text that the caller may read: confidential ones only for their author, assignees and reporters and above. */
export function searchIssues(db: Db, actor: Actor, source: SearchSource, text: string, filters: SearchFilters, page: Page): Paged<IssueRow> {
  if ('project' in source && !can(db, actor, 'read_issue', source.project)) return empty();
  if (filters.state === 'merged') return empty();
  const state = filters.state === 'all' ? undefined : filters.state;
  return listIssues(db, actor, source, { fullText: text, state, confidential: filters.confidential, sort: filters.sort }, page);
}

/** Merge requests matching the text, in projects whose merge requests the caller may read. */
export function searchMergeRequests(db: Db, actor: Actor, source: SearchSource, text: string, filters: SearchFilters, page: Page): Paged<MergeRequestRow> {
  if ('project' in source && !canReadMergeRequest(db, actor, source.project)) return empty();
  const state = filters.state === 'all' ? undefined : filters.state;
  return listMergeRequests(db, actor, source, { fullText: text, state, sort: filters.sort }, page);
}

/** Milestones matching the text: of readable projects, and of readable groups (a group search: its tree's), most recently updated first. */
export function searchMilestones(db: Db, actor: Actor, source: SearchSource, text: string, page: Page): Paged<MilestoneRow> {
  const match = textMatch('milestones', 'ms', 'title', text);
  const where = [match.sql];
  const params: Record<string, unknown> = { ...match.params };
  if ('project' in source) {
    where.push('ms.project_id = @project');
    params.project = source.project.id;
  } else {
    const projects = readableProjectsAnywhere(actor);
    const groups = readableGroupsAnywhere(actor);
    where.push(`((ms.project_id IS NOT NULL AND ${projects.sql}) OR (ms.group_id IS NOT NULL AND ${groups.sql}))`);
    Object.assign(params, projects.params, groups.params);
    if ('group' in source) {
      where.push('(p.namespace_id IN (SELECT value FROM json_each(@tree)) OR ms.group_id IN (SELECT value FROM json_each(@tree)))');
      params.tree = JSON.stringify(groupTreeIds(db, source.group.id));
    }
  }
  const fromWhere = `FROM milestones ms LEFT JOIN projects p ON p.id = ms.project_id LEFT JOIN namespaces g ON g.id = ms.group_id WHERE ${where.join(' AND ')}`;
  return selectPage<MilestoneRow>(db, 'ms.*', fromWhere, 'ms.updated_at DESC, ms.id DESC', [params], page);
}

/**
 * Active users whose username or name contains the text, or whose email is the text: anyone's for
 * a search everywhere, the members of a group (and its ancestors) or of a project's team otherwise.
 * Exact usernames first, then by name (GitLab's User.search order).
 */
export function searchUsers(db: Db, source: SearchSource, text: string, page: Page): Paged<UserRow> {
  const where = ["u.state = 'active'", "(u.username LIKE @like ESCAPE '\\' OR u.name LIKE @like ESCAPE '\\' OR u.email = @text COLLATE NOCASE)"];
  const params: Record<string, unknown> = { like: escapeLike(text), text, today: today() };
  if ('group' in source) {
    where.push("u.id IN (SELECT m.user_id FROM group_members m WHERE m.namespace_id IN (SELECT value FROM json_each(@groups)) AND (m.expires_at IS NULL OR m.expires_at >= @today))");
    params.groups = JSON.stringify(selfAndAncestorGroupIds(db, source.group.id));
  } else if ('project' in source) {
    where.push(`u.id IN (${PROJECT_TEAM_USER_IDS})`);
    Object.assign(params, { project: source.project.id, namespace: source.project.namespace_id });
  }
  return selectPage<UserRow>(db, 'u.*', `FROM users u WHERE ${where.join(' AND ')}`, 'u.username = @text COLLATE NOCASE DESC, u.name COLLATE NOCASE ASC, u.id ASC', [params], page);
}

/**
 * A project's user notes matching the text, on what the caller may read there: issues (the
 * confidential rule per issue), merge requests and commits, each only when its feature is readable.
 */
export function searchNotes(db: Db, actor: Actor, project: ProjectRow, text: string, page: Page): Paged<NoteRow> {
  const kinds: string[] = [];
  const params: Record<string, unknown> = { project: project.id };
  if (can(db, actor, 'read_issue', project)) {
    const readable: SqlCondition = readableIssuesInProject(db, actor, project);
    kinds.push(`(n.noteable_type = 'Issue' AND EXISTS (SELECT 1 FROM issues i WHERE i.id = n.noteable_id AND ${readable.sql}))`);
    Object.assign(params, readable.params);
  }
  if (canReadMergeRequest(db, actor, project)) kinds.push("n.noteable_type = 'MergeRequest'");
  if (can(db, actor, 'download_code', project)) kinds.push("n.noteable_type = 'Commit'");
  if (!kinds.length) return empty();
  const match = textMatch('notes', 'n', 'body', text);
  Object.assign(params, match.params);
  const fromWhere = `FROM notes n WHERE ${match.sql} AND n.project_id = @project AND n.system = 0 AND (${kinds.join(' OR ')})`;
  return selectPage<NoteRow>(db, 'n.*', fromWhere, 'n.created_at DESC, n.id DESC', [params], page);
}

/** The iid of each note's issue or merge request (what NoteRelations names per noteable), with the notes' authors. */
export function noteSearchRelations(db: Db, notes: readonly NoteRow[]): { iids: Map<string, number>; users: Map<number, UserRow> } {
  const ids = (type: string) => JSON.stringify(notes.flatMap((note) => (note.noteable_type === type && note.noteable_id !== null ? [note.noteable_id] : [])));
  const rows = db
    .prepare("SELECT 'Issue' AS type, id, iid FROM issues WHERE id IN (SELECT value FROM json_each(?)) UNION ALL SELECT 'MergeRequest', id, iid FROM merge_requests WHERE id IN (SELECT value FROM json_each(?))")
    .all(ids('Issue'), ids('MergeRequest')) as { type: string; id: number; iid: number }[];
  const users = usersByIds(db, [...new Set(notes.flatMap((note) => (note.resolved_by_id === null ? [note.author_id] : [note.author_id, note.resolved_by_id])))]);
  return { iids: new Map(rows.map((row) => [`${row.type}:${row.id}`, row.iid])), users };
}
