import type { Request, Response } from 'express';
import { projectHook } from '../../entities/hooks.js';
import { createProjectHook, deleteProjectHook, getProjectHook, listProjectHooks, updateProjectHook, type ProjectHookInput } from '../../services/hooks/project-hooks.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, pathInt, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

export function listHooks(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listProjectHooks(ctx.db, projectOf(req).id, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(projectHook), result.total);
}

export function showHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, projectHook(getProjectHook(ctx.db, projectOf(req).id, pathInt(req.params.hook_id, 'hook_id'))));
}

export function addHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, projectHook(createProjectHook(ctx.db, projectOf(req).id, hookParams.of(req))));
}

export function editHook(ctx: SiteContext, req: Request, res: Response): void {
  const hookId = pathInt(req.params.hook_id, 'hook_id');
  sendJson(res, 200, projectHook(updateProjectHook(ctx.db, projectOf(req).id, hookId, hookParams.of(req))));
}

export function removeHook(ctx: SiteContext, req: Request, res: Response): void {
  deleteProjectHook(ctx.db, projectOf(req).id, pathInt(req.params.hook_id, 'hook_id'));
  sendNoContent(res);
}

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
    enable_ssl_verification: bool(),
  },
  ({ wiki_events: wikiEvents, ...params }): ProjectHookInput => ({ ...params, wiki_page_events: params.wiki_page_events ?? wikiEvents }),
);
