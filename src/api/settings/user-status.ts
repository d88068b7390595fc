import type { Request, Response } from 'express';
import type { UserStatusRow } from '../../db/tables/user-statuses.js';
import { userStatus } from '../../entities/user-status.js';
import { emojiHtml } from '../../services/settings/emoji-html.js';
import { getUserStatus, setUserStatus } from '../../services/settings/user-status.js';
import { getUserByIdOrUsername } from '../../services/users/users.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { str } from '../params.js';
import { sendJson } from '../respond.js';

/** `emoji` and `message`, both optional (blank clears the status). */
export const userStatusParams = paramsGuard('userStatusParams', { emoji: str(), message: str() });

const statusView = (row: UserStatusRow | null) => userStatus(row, row?.message ? emojiHtml(row.message) : null);

export function showOwnStatus(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, statusView(getUserStatus(ctx.db, requireActor(req).user.id)));
}

export function setOwnStatus(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, statusView(setUserStatus(ctx.db, requireActor(req).user.id, userStatusParams.of(req))));
}

/** Anyone's status, by id or username; 404 `User` for an unknown one. */
export function showUserStatus(ctx: SiteContext, req: Request, res: Response): void {
  const user = getUserByIdOrUsername(ctx.db, String(req.params.user_id));
  sendJson(res, 200, statusView(getUserStatus(ctx.db, user.id)));
}
