import type { Request, Response } from 'express';
import { impersonationToken } from '../../entities/tokens.js';
import {
  createImpersonationToken,
  getImpersonationToken,
  listImpersonationTokens,
  revokeImpersonationToken,
} from '../../services/users/impersonation-tokens.js';
import type { SiteContext } from '../../site-context.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { date, list, oneOf, required, str } from '../params.js';

export const impersonationListParams = paramsGuard('impersonationListParams', { state: oneOf(['all', 'active', 'inactive'] as const) });
/** A new token's name, scopes and expiry (impersonation and personal access tokens alike). */
export const userTokenParams = paramsGuard('userTokenParams', { name: required(str()), scopes: required(list(str())), expires_at: date() });
/** The `:user_id` of `/users/:user_id/impersonation_tokens` and `/users/:user_id/personal_access_tokens`. */
export const tokenUserIdParam = pathId('user_id');
export const impersonationTokenIdParam = pathId('impersonation_token_id');
import { sendJson, sendNoContent } from '../respond.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export function listTokens(ctx: SiteContext, req: Request, res: Response): void {
  const { state } = impersonationListParams.of(req);
  const page = paged.of(req);
  const result = listImpersonationTokens(ctx.db, tokenUserIdParam.of(req), state ?? 'all', page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => impersonationToken(row)), result.total);
}

export function showToken(ctx: SiteContext, req: Request, res: Response): void {
  const row = getImpersonationToken(ctx.db, tokenUserIdParam.of(req), impersonationTokenIdParam.of(req));
  sendJson(res, 200, impersonationToken(row));
}

export function addToken(ctx: SiteContext, req: Request, res: Response): void {
  const params = userTokenParams.of(req);
  const { row, token } = createImpersonationToken(ctx.db, tokenUserIdParam.of(req), {
    name: params.name,
    scopes: params.scopes,
    expiresAt: params.expires_at ?? null,
  });
  sendJson(res, 201, impersonationToken(row, token));
}

export function revokeToken(ctx: SiteContext, req: Request, res: Response): void {
  revokeImpersonationToken(ctx.db, tokenUserIdParam.of(req), impersonationTokenIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}
