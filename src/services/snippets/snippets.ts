import { rm } from 'node:fs/promises';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { projectFullPaths, usersByIds } from '../../db/tables/project-relations.js';
import type { SnippetRelations } from '../../entities/snippets.js';
import { deleteAwardsOf } from '../../db/tables/award-emoji.js';
import { deleteNotesOf, noteIdsOf } from '../../db/tables/notes.js';
import { deleteSnippetRow, findSnippetById, insertSnippet, listSnippetRows, updateSnippetRow, type SnippetFilter, type SnippetRow } from '../../db/tables/snippets.js';
import { deleteUserAgentDetailsOf, insertUserAgentDetail } from '../../db/tables/user-agent-details.js';
import { apiError, forbidden, notFound } from '../../errors.js';
import { recordSnippetRepositoryChange, recordSnippetRepositoryDeleted } from '../../geo/snippet-repository-events.js';
import { removeSnippetRepositories } from '../../git/repositories.js';
import { nowIso } from '../../storage/clock.js';
import type { SiteContext } from '../../site-context.js';
import { canReadSnippet, canUpdateSnippet, readableSnippets } from '../permissions.js';
import type { RequestOrigin } from '../issuables/issues.js';
import type { Actor } from '../users/authentication.js';
import { changesOf, legacyAction, type SnippetFileAction } from './snippet-actions.js';
import { commitToSnippet, snippetFiles, snippetRepositoryOf, writingSnippet } from './snippet-repository.js';

/** A snippet with its project (null for a personal one), as routes load it. */
export interface LoadedSnippet {
  readonly snippet: SnippetRow;
  readonly project: ProjectRow | null;
}

const MAX_TITLE = 255;

/**
 * The snippet `id` the actor may read, as GitLab's SnippetsFinder finds it: any snippet (personal
 * or of a project) for `/snippets/:id`, one of `project` for the project routes; 404 `Snippet`
 * otherwise (a snippet the actor may not see included).
 */
export function findReadableSnippet(ctx: SiteContext, actor: Actor | null, id: number, project: ProjectRow | null): LoadedSnippet {
  const snippet = findSnippetById(ctx.db, id);
  if (!snippet || (project && snippet.project_id !== project.id)) throw notFound('Snippet');
  const home = project ?? (snippet.project_id === null ? null : (findProjectById(ctx.db, snippet.project_id) ?? null));
  if (snippet.project_id !== null && !home) throw notFound('Snippet');
  if (!canReadSnippet(ctx.db, actor, snippet, home)) throw notFound('Snippet');
  return { snippet, project: home };
}

/** 403 unless the actor may edit or delete the snippet (update_snippet, admin_snippet). */
export function assertSnippetEditable(ctx: SiteContext, actor: Actor | null, loaded: LoadedSnippet): void {
  if (!canUpdateSnippet(ctx.db, actor, loaded.snippet, loaded.project)) throw forbidden();
}

/** A page of the snippets the actor may read, narrowed by `filter`. */
export function listSnippets(ctx: SiteContext, actor: Actor | null, filter: SnippetFilter, page: Page): Paged<SnippetRow> {
  return listSnippetRows(ctx.db, readableSnippets(actor), filter, page);
}

export interface SnippetInput {
  readonly title: string;
  readonly description?: string;
  readonly visibility_level: number;
  readonly files: readonly { readonly file_path: string; readonly content: string }[];
}

function assertTitle(title: string): void {
  if (!title.trim()) throw apiError("Title can't be blank");
  if (title.length > MAX_TITLE) throw apiError(`Title is too long (maximum is ${MAX_TITLE} characters)`);
}

/**
 * Creates a snippet and its repository with one commit holding its files (GitLab's
 * Snippets::CreateService): the row first, then the commit; a commit that fails takes the row
 * and the repository away again, so no snippet is left without its files.
 */
export async function createSnippet(ctx: SiteContext, actor: Actor, project: ProjectRow | null, input: SnippetInput, origin: RequestOrigin): Promise<SnippetRow> {
  assertTitle(input.title);
  const { changes, paths } = changesOf(input.files.map((file) => ({ action: 'create' as const, file_path: file.file_path, content: file.content })), []);
  const now = nowIso();
  const id = inTransaction(ctx.db, () => {
    const inserted = insertSnippet(ctx.db, {
      title: input.title,
      description: input.description ?? null,
      author_id: actor.user.id,
      project_id: project?.id ?? null,
      visibility_level: input.visibility_level,
      file_paths: JSON.stringify(paths),
      created_at: now,
      updated_at: now,
    });
    insertUserAgentDetail(ctx.db, 'Snippet', inserted, origin.userAgent, origin.ipAddress, now);
    return inserted;
  });
  try {
    await writingSnippet(ctx, id, () => commitToSnippet(ctx, id, actor, { branch: 'main', commit: null }, changes, 'Initial commit'));
  } catch (error) {
    inTransaction(ctx.db, () => removeSnippetRows(ctx, id));
    await removeSnippetRepositories(ctx.config.dataDir, [id]);
    throw error;
  }
  await recordSnippetRepositoryChange(ctx.db, ctx.config.dataDir, id, 'created');
  return findSnippetById(ctx.db, id)!;
}

export interface SnippetUpdate {
  readonly title?: string;
  readonly description?: string;
  readonly visibility_level?: number;
  readonly files?: readonly SnippetFileAction[];
  readonly file_name?: string;
  readonly content?: string;
}

/**
 * Changes a snippet's fields and files (GitLab's Snippets::UpdateService): `files` actions, or
 * the legacy `file_name`/`content` on a snippet of one file (400 for one of several), committed
 * by the actor; the row's file list follows the commit.
 */
export function updateSnippet(ctx: SiteContext, actor: Actor, loaded: LoadedSnippet, update: SnippetUpdate): Promise<SnippetRow> {
  const { snippet } = loaded;
  return writingSnippet(ctx, snippet.id, async () => {
    if (update.title !== undefined) assertTitle(update.title);
    const legacy = update.file_name !== undefined || update.content !== undefined;
    const repository = snippetRepositoryOf(ctx, snippet.id);
    const { head, files } = await snippetFiles(repository);
    if (legacy && files.length > 1) throw apiError('To update Snippets with multiple files, you must use the `files` parameter');
    const actions = update.files ?? (legacy ? [legacyAction(files, update.file_name, update.content)] : null);
    let paths: string[] | null = null;
    if (actions) {
      const planned = changesOf(actions, files);
      await commitToSnippet(ctx, snippet.id, actor, head, planned.changes, 'Update snippet');
      paths = planned.paths;
    }
    inTransaction(ctx.db, () => {
      if (!findSnippetById(ctx.db, snippet.id)) throw notFound('Snippet');
      updateSnippetRow(ctx.db, snippet.id, {
        ...(update.title !== undefined ? { title: update.title } : {}),
        ...(update.description !== undefined ? { description: update.description } : {}),
        ...(update.visibility_level !== undefined ? { visibility_level: update.visibility_level } : {}),
        ...(paths ? { file_paths: JSON.stringify(paths) } : {}),
        updated_at: nowIso(),
      });
    });
    if (actions) await recordSnippetRepositoryChange(ctx.db, ctx.config.dataDir, snippet.id, 'updated');
    return findSnippetById(ctx.db, snippet.id)!;
  });
}

/** The rows that go with a snippet: its notes and their award emoji, its award emoji, its user agent detail, itself. */
function removeSnippetRows(ctx: SiteContext, id: number): void {
  const noteIds = noteIdsOf(ctx.db, 'Snippet', [id]);
  deleteAwardsOf(ctx.db, 'Note', noteIds);
  deleteNotesOf(ctx.db, 'Snippet', [id]);
  deleteAwardsOf(ctx.db, 'Snippet', [id]);
  deleteUserAgentDetailsOf(ctx.db, 'Snippet', [id]);
  deleteSnippetRow(ctx.db, id);
}

/** Deletes a snippet, its rows and its repository; the repository's Geo `deleted` event commits with the row's removal. */
export async function deleteSnippet(ctx: SiteContext, loaded: LoadedSnippet): Promise<void> {
  const { snippet } = loaded;
  await writingSnippet(ctx, snippet.id, async () => {
    inTransaction(ctx.db, () => {
      removeSnippetRows(ctx, snippet.id);
      recordSnippetRepositoryDeleted(ctx.db, snippet.id, snippet.project_id);
    });
    await rm(snippetRepositoryOf(ctx, snippet.id), { recursive: true, force: true });
  });
}

/**
 * After a push to a snippet's repository: the row's file list and updated_at follow the branch,
 * then the Geo event (an unchanged repository appends none).
 */
export async function afterSnippetPush(ctx: SiteContext, snippetId: number): Promise<void> {
  const { files } = await snippetFiles(snippetRepositoryOf(ctx, snippetId));
  inTransaction(ctx.db, () => {
    if (findSnippetById(ctx.db, snippetId)) updateSnippetRow(ctx.db, snippetId, { file_paths: JSON.stringify(files.map((file) => file.path)), updated_at: nowIso() });
  });
  await recordSnippetRepositoryChange(ctx.db, ctx.config.dataDir, snippetId, 'updated');
}

/** Each snippet's author and project path, one query each, for the views of a page. */
export function snippetRelationsOf(ctx: SiteContext, rows: readonly SnippetRow[]): (row: SnippetRow) => SnippetRelations {
  const authors = usersByIds(ctx.db, rows.map((row) => row.author_id));
  const paths = projectFullPaths(ctx.db, rows.flatMap((row) => (row.project_id === null ? [] : [row.project_id])));
  return (row) => ({ author: authors.get(row.author_id)!, projectPath: row.project_id === null ? null : (paths.get(row.project_id) ?? null) });
}
