import type { Request, Response } from 'express';
import type { HookOwner } from '../../db/tables/hooks.js';
import { hook } from '../../entities/hooks.js';
import { createHook, deleteHook, getHook, listHooks, updateHook, type HookInput } from '../../services/hooks/hooks.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, projectOf } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { bool, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

/** Create and edit take the same parameters; `wiki_events` is the SPEC's name for wiki_page_events, and clients send either. */
export const hookParams = paramsGuard(
  'hookParams',
  {
    url: required(str()),
    token: str(),
    push_events: bool(),
    issues_events: bool(),
    confidential_issues_events: bool(),
    merge_requests_events: bool(),
    tag_push_events: bool(),
    note_events: bool(),
    job_events: bool(),
    pipeline_events: bool(),
    wiki_page_events: bool(),
    wiki_events: bool(),
    releases_events: bool(),
    enable_ssl_verification: bool(),
  },
  ({ wiki_events: wikiEvents, ...params }): HookInput => ({ ...params, wiki_page_events: params.wiki_page_events ?? wikiEvents }),
);

/** The `:hook_id` of a hook route. */
export const hookIdParam = pathId('hook_id');

/** The handlers of one kind of hook owner: a project's routes (loadProject) or a group's (loadGroup). */
export function hookHandlers(owner: HookOwner) {
  const ownerId = (req: Request): number => (owner === 'project' ? projectOf(req) : groupOf(req)).id;

  return {
    list(ctx: SiteContext, req: Request, res: Response): void {
      const page = paged.of(req);
      const result = listHooks(ctx.db, owner, ownerId(req), page);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => hook(owner, row)), result.total);
    },
    show(ctx: SiteContext, req: Request, res: Response): void {
      sendJson(res, 200, hook(owner, getHook(ctx.db, owner, ownerId(req), hookIdParam.of(req))));
    },
    add(ctx: SiteContext, req: Request, res: Response): void {
      sendJson(res, 201, hook(owner, createHook(ctx.db, owner, ownerId(req), hookParams.of(req))));
    },
    edit(ctx: SiteContext, req: Request, res: Response): void {
      sendJson(res, 200, hook(owner, updateHook(ctx.db, owner, ownerId(req), hookIdParam.of(req), hookParams.of(req))));
    },
    remove(ctx: SiteContext, req: Request, res: Response): void {
      deleteHook(ctx.db, owner, ownerId(req), hookIdParam.of(req), unmodifiedSince.of(req));
      sendNoContent(res);
    },
  };
}
