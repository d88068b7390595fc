import type { Request, Response } from 'express';
import { broadcastMessageView } from '../../entities/broadcast-messages.js';
import {
  changeBroadcastMessage,
  createBroadcastMessage,
  getBroadcastMessage,
  listBroadcastMessages,
  removeBroadcastMessage,
} from '../../services/administration/broadcast-messages.js';
import type { SiteContext } from '../../site-context.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { bool, datetime, given, int, list, oneOf, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { badRequest } from '../../errors.js';

/** GitLab's BroadcastMessage::ALLOWED_TARGET_ACCESS_LEVELS. */
const TARGET_LEVELS = [10, 20, 30, 40, 50];

const targetLevel = (raw: unknown, name: string) => {
  const level = int()(raw, name);
  if (level !== undefined && !TARGET_LEVELS.includes(level)) throw badRequest(`${name} does not have a valid value`);
  return level;
};

const fields = {
  starts_at: datetime(),
  ends_at: datetime(),
  color: str({ max: 255 }),
  font: str({ max: 255 }),
  target_access_levels: list(targetLevel),
  target_path: str({ max: 255 }),
  broadcast_type: oneOf(['banner', 'notification'] as const),
  dismissable: bool(),
};
export const broadcastCreateParams = paramsGuard('broadcastCreateParams', { message: required(str()), ...fields }, given);
export const broadcastEditParams = paramsGuard('broadcastEditParams', { message: str(), ...fields }, given);
export const messageIdParam = pathId('id');

export function listMessages(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listBroadcastMessages(ctx.db, page);
  const now = Date.now();
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => broadcastMessageView(row, now)), result.total);
}

export function showMessage(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, broadcastMessageView(getBroadcastMessage(ctx.db, messageIdParam.of(req)), Date.now()));
}

export function addMessage(ctx: SiteContext, req: Request, res: Response): void {
  const input = broadcastCreateParams.of(req);
  sendJson(res, 201, broadcastMessageView(createBroadcastMessage(ctx.db, { ...input, message: input.message! }), Date.now()));
}

export function editMessage(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, broadcastMessageView(changeBroadcastMessage(ctx.db, messageIdParam.of(req), broadcastEditParams.of(req)), Date.now()));
}

export function removeMessage(ctx: SiteContext, req: Request, res: Response): void {
  removeBroadcastMessage(ctx.db, messageIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}
