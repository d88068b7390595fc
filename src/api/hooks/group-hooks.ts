import type { Request, Response } from 'express';
import { groupHook } from '../../entities/hooks.js';
import { createGroupHook, deleteGroupHook, getGroupHook, listGroupHooks, updateGroupHook } from '../../services/hooks/group-hooks.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { pathInt } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { hookParams } from './project-hooks.js';

/** Group hooks (ee): the project hooks' handlers over the loaded group. */
export function listGroupHooksOfGroup(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listGroupHooks(ctx.db, groupOf(req).id, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(groupHook), result.total);
}

export function showGroupHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, groupHook(getGroupHook(ctx.db, groupOf(req).id, pathInt(req.params.hook_id, 'hook_id'))));
}

export function addGroupHook(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, groupHook(createGroupHook(ctx.db, groupOf(req).id, hookParams.of(req))));
}

export function editGroupHook(ctx: SiteContext, req: Request, res: Response): void {
  const hookId = pathInt(req.params.hook_id, 'hook_id');
  sendJson(res, 200, groupHook(updateGroupHook(ctx.db, groupOf(req).id, hookId, hookParams.of(req))));
}

export function removeGroupHook(ctx: SiteContext, req: Request, res: Response): void {
  deleteGroupHook(ctx.db, groupOf(req).id, pathInt(req.params.hook_id, 'hook_id'));
  sendNoContent(res);
}
