import type { Request, Response } from 'express';
import { impersonationToken } from '../../entities/tokens.js';
import {
  createImpersonationToken,
  getImpersonationToken,
  listImpersonationTokens,
  revokeImpersonationToken,
} from '../../services/users/impersonation-tokens.js';
import type { SiteContext } from '../../site-context.js';
import { readPage, sendPage } from '../pagination.js';
import { date, list, oneOf, pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

export function listTokens(ctx: SiteContext, req: Request, res: Response): void {
  const { state } = readParams(req.input, { state: oneOf(['all', 'active', 'inactive'] as const) });
  const page = readPage(req.input);
  const result = listImpersonationTokens(ctx.db, pathInt(req.params.user_id, 'user_id'), state ?? 'all', page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => impersonationToken(row)), result.total);
}

export function showToken(ctx: SiteContext, req: Request, res: Response): void {
  const row = getImpersonationToken(ctx.db, pathInt(req.params.user_id, 'user_id'), pathInt(req.params.token_id, 'impersonation_token_id'));
  sendJson(res, 200, impersonationToken(row));
}

export function addToken(ctx: SiteContext, req: Request, res: Response): void {
  const params = readParams(req.input, { name: required(str()), scopes: required(list(str())), expires_at: date() });
  const { row, token } = createImpersonationToken(ctx.db, pathInt(req.params.user_id, 'user_id'), {
    name: params.name,
    scopes: params.scopes,
    expiresAt: params.expires_at ?? null,
  });
  sendJson(res, 201, impersonationToken(row, token));
}

export function revokeToken(ctx: SiteContext, req: Request, res: Response): void {
  revokeImpersonationToken(ctx.db, pathInt(req.params.user_id, 'user_id'), pathInt(req.params.token_id, 'impersonation_token_id'));
  sendNoContent(res);
}
