import type { IssueRow } from '../db/tables/issues.js';
import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { ProjectRow } from '../db/tables/projects.js';
import type { TodoRow } from '../db/tables/todos.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import type { MergeRequestRow } from '../db/tables/merge-requests.js';
import { issueBasic, type IssueRelations } from './issues.js';
import { mergeRequestView, type MergeRequestRelations } from './merge-requests.js';
import { userBasic, type EntityContext } from './users.js';

/** What the Todo views need beyond the rows, loaded for a whole page (services/issuables/todo-relations.ts). */
export interface TodoRelations {
  readonly authors: ReadonlyMap<number, UserRow>;
  readonly projects: ReadonlyMap<number, ProjectRow>;
  readonly namespaces: ReadonlyMap<number, NamespaceRow>;
  readonly issues: ReadonlyMap<number, IssueRow>;
  readonly issueRelations: IssueRelations;
  readonly mergeRequests: ReadonlyMap<number, MergeRequestRow>;
  readonly mergeRequestRelations: MergeRequestRelations;
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
 * GitLab's Todo entity: its project, author, action, the target (an issue as the issue lists
 * show it, a merge request as the MergeRequest entity, GITLAB-NOTES 2.3 Todo) and its URL (with the note's anchor for a mention in a note), body, state, created_at.
 */
export function todoView(row: TodoRow, rel: TodoRelations, ctx: EntityContext) {
  const project = row.project_id === null ? undefined : rel.projects.get(row.project_id);
  const author = rel.authors.get(row.author_id);
  const issue = row.target_type === 'Issue' && row.target_id !== null ? rel.issues.get(row.target_id) : undefined;
  const projectUrl = project ? `${ctx.externalUrl}/${rel.namespaces.get(project.namespace_id)?.full_path ?? ''}/${project.path}` : ctx.externalUrl;
  const mergeRequest = row.target_type === 'MergeRequest' && row.target_id !== null ? rel.mergeRequests.get(row.target_id) : undefined;
  const anchor = row.note_id !== null ? `#note_${row.note_id}` : '';
  const targetUrl = issue ? `${projectUrl}/issues/${issue.iid}${anchor}` : mergeRequest ? `${projectUrl}/merge_requests/${mergeRequest.iid}${anchor}` : null;
  return {
    id: row.id,
    project: project ? projectIdentity(project, rel.namespaces.get(project.namespace_id)) : null,
    author: author ? userBasic(author, ctx) : null,
    action_name: row.action,
    target_type: row.target_type,
    target: issue ? issueBasic(issue, rel.issueRelations, ctx) : mergeRequest ? mergeRequestView(mergeRequest, rel.mergeRequestRelations, ctx) : null,
    target_url: targetUrl,
    body: row.body,
    state: row.state,
    created_at: isoTime(row.created_at),
  };
}
