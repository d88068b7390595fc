import type { Edition } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { issuesByIds } from '../../db/tables/issues.js';
import { namespacesByIds, projectsByIds, usersByIds } from '../../db/tables/project-relations.js';
import type { TodoRow } from '../../db/tables/todos.js';
import type { TodoRelations } from '../../entities/todos.js';
import type { Actor } from '../users/authentication.js';
import { mergeRequestsByIds } from '../../db/tables/merge-requests.js';
import { loadMergeRequestRelations } from '../merge-requests/relations.js';
import { loadIssueRelations } from './issue-relations.js';

/** What the Todo views need for a page of todos, one query per kind: authors, projects, their namespaces, the target issues and merge requests and theirs. */
export function loadTodoRelations(db: Db, edition: Edition, actor: Actor, rows: readonly TodoRow[]): TodoRelations {
  const projects = projectsByIds(db, [...new Set(rows.flatMap((row) => (row.project_id === null ? [] : [row.project_id])))]);
  const issueIds = [...new Set(rows.flatMap((row) => (row.target_type === 'Issue' && row.target_id !== null ? [row.target_id] : [])))];
  const issues = issuesByIds(db, issueIds);
  const mergeRequests = mergeRequestsByIds(db, [...new Set(rows.flatMap((row) => (row.target_type === 'MergeRequest' && row.target_id !== null ? [row.target_id] : [])))]);
  return {
    authors: usersByIds(db, [...new Set(rows.map((row) => row.author_id))]),
    projects,
    namespaces: namespacesByIds(db, [...new Set([...projects.values()].map((project) => project.namespace_id))]),
    issues: new Map(issues.map((issue) => [issue.id, issue])),
    issueRelations: loadIssueRelations(db, actor, issues),
    mergeRequests: new Map(mergeRequests.map((row) => [row.id, row])),
    mergeRequestRelations: loadMergeRequestRelations(db, actor, mergeRequests, { edition }),
  };
}
