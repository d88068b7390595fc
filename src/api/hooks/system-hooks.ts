import type { Request, Response } from 'express';
import { systemHookEntity } from '../../entities/system-hooks.js';
import { createSystemHook, deleteSystemHook, getSystemHook, listSystemHooks, testSystemHook, updateSystemHook } from '../../services/hooks/system-hooks.js';
import type { SiteContext } from '../../site-context.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { bool, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { hookIdParam } from './hooks.js';

const systemHookFields = {
  url: str(),
  name: str(),
  description: str(),
  token: str(),
  push_events: bool(),
  tag_push_events: bool(),
  merge_requests_events: bool(),
  repository_update_events: bool(),
  enable_ssl_verification: bool(),
};

/** POST /hooks: `url` required (system_hooks.rb `use :requires_url`). */
export const systemHookCreateParams = paramsGuard('systemHookCreateParams', { ...systemHookFields, url: required(str()) });
/** PUT /hooks/:hook_id: every field optional (`use :optional_url`). */
export const systemHookUpdateParams = paramsGuard('systemHookUpdateParams', systemHookFields);

export function listHooks(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const { rows, total } = listSystemHooks(ctx.db, page);
  sendPage(req, res, ctx.externalUrl, page, rows.map(systemHookEntity), total);
}

export function showHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, systemHookEntity(getSystemHook(ctx.db, hookIdParam.of(req))));
}

export function addHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, systemHookEntity(createSystemHook(ctx.db, systemHookCreateParams.of(req))));
}

export function editHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, systemHookEntity(updateSystemHook(ctx.db, hookIdParam.of(req), systemHookUpdateParams.of(req))));
}

/** POST /hooks/:hook_id: queues GitLab's sample event to the hook and answers it (201). */
export function testHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, testSystemHook(ctx, hookIdParam.of(req)));
}

export function removeHook(ctx: SiteContext, req: Request, res: Response): void {
  deleteSystemHook(ctx.db, hookIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}
