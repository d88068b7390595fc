import type { IssueRow } from '../db/tables/issues.js';
import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { ProjectRow } from '../db/tables/projects.js';
import type { TodoRow } from '../db/tables/todos.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import { issueBasic, type IssueRelations } from './issues.js';
import { userBasic, type EntityContext } from './users.js';

/** What the Todo views need beyond the rows, loaded for a whole page (services/issuables/todo-relations.ts). */
export interface TodoRelations {
  readonly authors: ReadonlyMap<number, UserRow>;
  readonly projects: ReadonlyMap<number, ProjectRow>;
  readonly namespaces: ReadonlyMap<number, NamespaceRow>;
  readonly issues: ReadonlyMap<number, IssueRow>;
  readonly issueRelations: IssueRelations;
}

/** GitLab's ProjectIdentity, as a todo names its project. */
function projectIdentity(project: ProjectRow, namespace: NamespaceRow | undefined) {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace?.full_name ?? ''} / ${project.name}`,
    path: project.path,
    path_with_namespace: `${namespace?.full_path ?? ''}/${project.path}`,
    created_at: isoTime(project.created_at),
  };
}

/**
 * GitLab's Todo entity: its project, author, action, the target (an issue, as the issue lists
 * show it) and its URL (with the note's anchor for a mention in a note), body, state, created_at.
 */
export function todoView(row: TodoRow, rel: TodoRelations, ctx: EntityContext) {
  const project = row.project_id === null ? undefined : rel.projects.get(row.project_id);
  const author = rel.authors.get(row.author_id);
  const issue = row.target_type === 'Issue' && row.target_id !== null ? rel.issues.get(row.target_id) : undefined;
  const projectUrl = project ? `${ctx.externalUrl}/${rel.namespaces.get(project.namespace_id)?.full_path ?? ''}/${project.path}` : ctx.externalUrl;
  const targetUrl = issue ? `${projectUrl}/issues/${issue.iid}${row.note_id !== null ? `#note_${row.note_id}` : ''}` : null;
  return {
    id: row.id,
    project: project ? projectIdentity(project, rel.namespaces.get(project.namespace_id)) : null,
    author: author ? userBasic(author, ctx) : null,
    action_name: row.action,
    target_type: row.target_type,
    target: issue ? issueBasic(issue, rel.issueRelations, ctx) : null,
    target_url: targetUrl,
    body: row.body,
    state: row.state,
    created_at: isoTime(row.created_at),
  };
}
