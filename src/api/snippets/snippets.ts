import type { Request, Response } from 'express';
import { findUserAgentDetail } from '../../db/tables/user-agent-details.js';
import { snippetView } from '../../entities/snippets.js';
import { notFound } from '../../errors.js';
import { firstSnippetFile, snippetFileAt, snippetRepositoryOf } from '../../services/snippets/snippet-repository.js';
import { createSnippet, deleteSnippet, listSnippets, snippetRelationsOf, updateSnippet, type LoadedSnippet } from '../../services/snippets/snippets.js';
import type { SnippetFilter, SnippetRow } from '../../db/tables/snippets.js';
import type { SiteContext } from '../../site-context.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import type { ValueGuard } from '../middleware/value-guards.js';
import { sendPage } from '../pagination.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { Handler } from '../routes.js';
import { personalSnippetCreateParams, projectSnippetCreateParams, snippetFileRef, snippetListParams, snippetUpdateParams } from './snippet-params.js';

const viewOf = (ctx: SiteContext, row: SnippetRow) => snippetView(row, snippetRelationsOf(ctx, [row])(row), ctx);
const originOf = (req: Request) => ({ userAgent: req.get('user-agent') ?? '', ipAddress: req.ip ?? req.socket.remoteAddress ?? '' });

/** A snippet list: the readable snippets the scope narrows to, newest first, paged. */
export const listSnippetsOf =
  (scope: (req: Request) => SnippetFilter): Handler =>
  (ctx, req, res) => {
    const { page, ...dates } = snippetListParams.of(req);
    const { rows, total } = listSnippets(ctx, req.actor, { ...scope(req), ...dates }, page);
    const relations = snippetRelationsOf(ctx, rows);
    sendPage(req, res, ctx.externalUrl, page, rows.map((row) => snippetView(row, relations(row), ctx)), total);
  };

export const showSnippet =
  (loaded: ValueGuard<LoadedSnippet>): Handler =>
  (ctx, req, res) =>
    sendJson(res, 200, viewOf(ctx, loaded.of(req).snippet));

export async function addPersonalSnippet(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const row = await createSnippet(ctx, requireActor(req), null, personalSnippetCreateParams.of(req), originOf(req));
  sendJson(res, 201, viewOf(ctx, row));
}

export async function addProjectSnippet(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const row = await createSnippet(ctx, requireActor(req), projectOf(req), projectSnippetCreateParams.of(req), originOf(req));
  sendJson(res, 201, viewOf(ctx, row));
}

export const editSnippet =
  (loaded: ValueGuard<LoadedSnippet>): Handler =>
  async (ctx, req, res) => {
    const row = await updateSnippet(ctx, requireActor(req), loaded.of(req), snippetUpdateParams.of(req));
    sendJson(res, 200, viewOf(ctx, row));
  };

export const removeSnippet =
  (loaded: ValueGuard<LoadedSnippet>): Handler =>
  async (ctx, req, res) => {
    const { snippet } = loaded.of(req);
    // GitLab's destroy_conditionally!: 412 when the snippet changed after the caller's If-Unmodified-Since.
    assertUnmodifiedSince(unmodifiedSince.of(req), snippet.updated_at);
    await deleteSnippet(ctx, loaded.of(req));
    sendNoContent(res);
  };

/**
 * A read of the snippet's repository, answered by the primary while this secondary's copy is not
 * current (api/geo/read-routing.ts), so content pushed a moment ago reads back from any site.
 */
const fromSnippetCopy =
  (reads: ReadRouting | null, loaded: ValueGuard<LoadedSnippet>, read: Handler): Handler =>
  (ctx, req, res) => {
    if (reads && !reads.isCurrent('snippet_repository', loaded.of(req).snippet.id)) return reads.fromPrimary(req, res);
    return read(ctx, req, res);
  };

function sendRaw(res: Response, content: Buffer, fileName: string): void {
  res.status(200).type('text/plain; charset=utf-8').set('Content-Disposition', `inline; filename="${fileName.replace(/["\\\r\n]/g, '_')}"`).send(content);
}

/** GET .../raw: the first file on the default branch, as text. */
export const showRaw = (reads: ReadRouting | null, loaded: ValueGuard<LoadedSnippet>): Handler =>
  fromSnippetCopy(reads, loaded, async (ctx, req, res) => {
    const { snippet } = loaded.of(req);
    const files = JSON.parse(snippet.file_paths) as string[];
    sendRaw(res, await firstSnippetFile(snippetRepositoryOf(ctx, snippet.id)), files[0] ?? 'snippet');
  });

/** GET .../files/:ref/:file_path/raw: one file at a ref; 404 `Reference` or `File`. */
export const showRawFile = (reads: ReadRouting | null, loaded: ValueGuard<LoadedSnippet>): Handler =>
  fromSnippetCopy(reads, loaded, async (ctx, req, res) => {
    const { ref, filePath } = snippetFileRef.of(req);
    const found = await snippetFileAt(snippetRepositoryOf(ctx, loaded.of(req).snippet.id), ref, filePath);
    if ('missing' in found) throw notFound(found.missing);
    sendRaw(res, found.content, filePath.split('/').pop()!);
  });

/** GET .../user_agent_detail (admins): what created the snippet; 404 `UserAgentDetail` when nothing was recorded. */
export const showSnippetUserAgentDetail =
  (loaded: ValueGuard<LoadedSnippet>): Handler =>
  (ctx, req, res) => {
    const detail = findUserAgentDetail(ctx.db, 'Snippet', loaded.of(req).snippet.id);
    if (!detail) throw notFound('UserAgentDetail');
    sendJson(res, 200, { user_agent: detail.user_agent, ip_address: detail.ip_address, akismet_submitted: detail.submitted === 1 });
  };
