import type { Request, Response } from 'express';
import { namespaceExists } from '../../services/groups/namespaces.js';
import { transferGroup } from '../../services/groups/transfer.js';
import { findVisibleGroup } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { int } from '../params.js';

export const groupTransferParams = paramsGuard('groupTransferParams', { group_id: int({ min: 1 }) });
export const namespaceExistsParams = paramsGuard('namespaceExistsParams', { parent_id: int({ min: 1 }) });
import { sendJson } from '../respond.js';
import { groupDetailOf } from './groups.js';

/**
 * POST /groups/:id/transfer (GitLab 14.6, python-gitlab's group.transfer(); 201) and PUT (200):
 * `group_id` names the new parent, none the top level. 404 `Group` for a parent the caller cannot see.
 */
export function transferGroupHandler(status: 200 | 201) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const actor = requireActor(req);
    const { group_id: parentId } = groupTransferParams.of(req);
    const parent = parentId === undefined ? null : findVisibleGroup(ctx.db, actor, { id: parentId });
    sendJson(res, status, groupDetailOf(ctx, actor, transferGroup(ctx.db, actor, groupOf(req), parent)));
  };
}

/** GET /namespaces/:id/exists: `:id` is the path asked about; `parent_id` scopes it below a group, else top level. */
export function showNamespaceExists(ctx: SiteContext, req: Request, res: Response): void {
  const { parent_id: parentId } = namespaceExistsParams.of(req);
  sendJson(res, 200, namespaceExists(ctx.db, String(req.params.id), parentId ?? null));
}
