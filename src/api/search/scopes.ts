import type { Page, Paged } from '../../db/page.js';
import { issueBasic } from '../../entities/issues.js';
import { mergeRequestBasic } from '../../entities/merge-requests.js';
import { milestoneView } from '../../entities/milestones.js';
import { noteView } from '../../entities/notes.js';
import { projectBasic } from '../../entities/projects.js';
import { commitEntity } from '../../entities/repository.js';
import { foundBlobView } from '../../entities/search.js';
import { userBasic } from '../../entities/users.js';
import { loadIssueRelations } from '../../services/issuables/issue-relations.js';
import { milestoneOwnerPaths } from '../../services/issuables/milestones.js';
import { loadMergeRequestRelations } from '../../services/merge-requests/relations.js';
import { loadProjectRelations } from '../../services/projects/relations.js';
import { searchBlobs, searchCommits, searchWikiBlobs } from '../../services/search/code.js';
import {
  noteSearchRelations,
  searchIssues,
  searchMergeRequests,
  searchMilestones,
  searchNotes,
  searchProjects,
  searchUsers,
  type SearchFilters,
  type SearchSource,
} from '../../services/search/records.js';
import type { Actor } from '../../services/users/authentication.js';
import type { SiteContext } from '../../site-context.js';

/** GitLab 17's basic-search scopes by level (snippet_titles: always empty, no snippets here yet). */
export const GLOBAL_SCOPES = ['projects', 'issues', 'merge_requests', 'milestones', 'snippet_titles', 'users'] as const;
export const GROUP_SCOPES = ['projects', 'issues', 'merge_requests', 'milestones', 'users'] as const;
export const PROJECT_SCOPES = ['issues', 'merge_requests', 'milestones', 'notes', 'wiki_blobs', 'commits', 'blobs', 'users'] as const;
export type SearchScope = (typeof GLOBAL_SCOPES)[number] | (typeof PROJECT_SCOPES)[number];

/** A search as its route read it. */
export interface SearchQuery {
  readonly scope: SearchScope;
  readonly text: string;
  readonly filters: SearchFilters;
  readonly ref: string | undefined;
  readonly page: Page;
}

type ScopeAnswer = (ctx: SiteContext, actor: Actor, source: SearchSource, query: SearchQuery) => Paged<unknown> | Promise<Paged<unknown>>;

const serialized = <T>(result: Paged<T>, view: (rows: T[]) => unknown[]): Paged<unknown> => ({ rows: view(result.rows), total: result.total });

/** A code scope answers only inside a project: each route's scope list keeps the others out. */
const projectOnly = (source: SearchSource) => {
  if (!('project' in source)) throw new Error('a code search scope outside a project');
  return source.project;
};

/** Each scope: its service, then GitLab 17's entity for it (lib/api/search.rb SCOPE_ENTITY). */
export const SCOPE_ANSWERS: Record<SearchScope, ScopeAnswer> = {
  projects: (ctx, actor, source, query) => {
    if ('project' in source) throw new Error('the projects scope inside a project');
    return serialized(searchProjects(ctx.db, actor, source, query.text, query.page), (rows) => {
      const rel = loadProjectRelations(ctx.db, actor, rows);
      return rows.map((row) => projectBasic(row, rel, ctx));
    });
  },
  issues: (ctx, actor, source, query) =>
    serialized(searchIssues(ctx.db, actor, source, query.text, query.filters, query.page), (rows) => {
      const rel = loadIssueRelations(ctx.db, actor, rows);
      return rows.map((row) => issueBasic(row, rel, ctx));
    }),
  merge_requests: (ctx, actor, source, query) =>
    serialized(searchMergeRequests(ctx.db, actor, source, query.text, query.filters, query.page), (rows) => {
      const rel = loadMergeRequestRelations(ctx.db, actor, rows, { edition: ctx.config.edition });
      return rows.map((row) => mergeRequestBasic(row, rel, ctx));
    }),
  milestones: (ctx, actor, source, query) =>
    serialized(searchMilestones(ctx.db, actor, source, query.text, query.page), (rows) => {
      const paths = milestoneOwnerPaths(ctx.db, rows);
      return rows.map((row) => milestoneView(row, paths(row), ctx));
    }),
  users: (ctx, _actor, source, query) => serialized(searchUsers(ctx.db, source, query.text, query.page), (rows) => rows.map((row) => userBasic(row, ctx))),
  snippet_titles: () => ({ rows: [], total: 0 }),
  notes: (ctx, actor, source, query) =>
    serialized(searchNotes(ctx.db, actor, projectOnly(source), query.text, query.page), (rows) => {
      const { iids, users } = noteSearchRelations(ctx.db, rows);
      return rows.map((row) => noteView(row, { users, noteableIid: iids.get(`${row.noteable_type}:${row.noteable_id}`) ?? null }, ctx));
    }),
  commits: async (ctx, actor, source, query) => {
    const project = projectOnly(source);
    const result = await searchCommits(ctx, actor, project, query.text, query.ref, query.page);
    return serialized(result, (rows) => rows.map((commit) => ({ ...commitEntity(commit), project_id: project.id })));
  },
  blobs: async (ctx, actor, source, query) => serialized(await searchBlobs(ctx, actor, projectOnly(source), query.text, query.ref, query.page), (rows) => rows.map(foundBlobView)),
  wiki_blobs: async (ctx, actor, source, query) => serialized(await searchWikiBlobs(ctx, actor, projectOnly(source), query.text, query.page), (rows) => rows.map(foundBlobView)),
};
