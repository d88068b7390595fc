import type { SnippetRow } from '../db/tables/snippets.js';
import type { UserRow } from '../db/tables/users.js';
import { visibilityName } from '../db/levels.js';
import { isoTime } from './column-values.js';
import { userBasic, type EntityContext } from './users.js';

/** What a snippet view needs besides its row: its author, and its project's full path (null for a personal snippet). */
export interface SnippetRelations {
  readonly author: UserRow;
  readonly projectPath: string | null;
}

/** The branch the files' raw URLs name (the repository's root ref). */
const RAW_REF = 'main';

/** Where the snippet lives on the web, and its repository's path, as GitLab's UrlBuilder builds them. */
function snippetPaths(row: SnippetRow, projectPath: string | null) {
  return projectPath === null
    ? { web: `-/snippets/${row.id}`, repository: `snippets/${row.id}` }
    : { web: `${projectPath}/-/snippets/${row.id}`, repository: `${projectPath}/snippets/${row.id}` };
}

/** GitLab 17's Snippet entity (PersonalSnippet and ProjectSnippet show the same fields). */
export function snippetView(row: SnippetRow, rel: SnippetRelations, ctx: EntityContext) {
  const paths = snippetPaths(row, rel.projectPath);
  const webUrl = `${ctx.externalUrl}/${paths.web}`;
  const files = JSON.parse(row.file_paths) as string[];
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    visibility: visibilityName(row.visibility_level),
    author: userBasic(rel.author, ctx),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    project_id: row.project_id,
    web_url: webUrl,
    raw_url: `${webUrl}/raw`,
    ssh_url_to_repo: `git@${new URL(ctx.externalUrl).hostname}:${paths.repository}.git`,
    http_url_to_repo: `${ctx.externalUrl}/${paths.repository}.git`,
    file_name: files[0] ?? '',
    files: files.map((file) => ({ path: file, raw_url: `${webUrl}/raw/${RAW_REF}/${file}` })),
    imported: false,
    imported_from: 'none',
  };
}
