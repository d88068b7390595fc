import type { Request, Response } from 'express';
import { email } from '../../entities/keys.js';
import { addEmail, deleteEmail, getEmail, listEmails } from '../../services/users/emails.js';
import type { SiteContext } from '../../site-context.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { required, str } from '../params.js';

export const userEmailParams = paramsGuard('userEmailParams', { email: required(str()) });
export const emailIdParam = pathId('email_id');
import { sendJson, sendNoContent } from '../respond.js';
import { accountOwnerId } from './account-owner.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export function listUserEmails(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  const page = paged.of(req);
  const result = listEmails(ctx.db, userId, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(email), result.total);
}

export function showUserEmail(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  sendJson(res, 200, email(getEmail(ctx.db, userId, emailIdParam.of(req))));
}

export function addUserEmail(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  const params = userEmailParams.of(req);
  sendJson(res, 201, email(addEmail(ctx.db, userId, params.email)));
}

export function removeUserEmail(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  deleteEmail(ctx.db, userId, emailIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}
