import { Router } from 'express';
import { impersonationToken } from '../../entities/tokens.js';
import {
  createImpersonationToken,
  getImpersonationToken,
  listImpersonationTokens,
  revokeImpersonationToken,
} from '../../services/users/impersonation-tokens.js';
import type { SiteContext } from '../../site-context.js';
import { requireAdmin } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { date, list, oneOf, pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** Impersonation tokens of a user; every route is admin only (SPEC: Users). */
export function impersonationTokensRouter(ctx: SiteContext): Router {
  const router = Router();
  router.get('/users/:user_id/impersonation_tokens', (req, res) => {
    requireAdmin(req);
    const { state } = readParams(req.input, { state: oneOf(['all', 'active', 'inactive'] as const) });
    const page = readPage(req.input);
    const result = listImpersonationTokens(ctx.db, pathInt(req.params.user_id, 'user_id'), state ?? 'all', page);
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => impersonationToken(row)), result.total);
  });
  router.get('/users/:user_id/impersonation_tokens/:token_id', (req, res) => {
    requireAdmin(req);
    const row = getImpersonationToken(ctx.db, pathInt(req.params.user_id, 'user_id'), pathInt(req.params.token_id, 'impersonation_token_id'));
    sendJson(res, 200, impersonationToken(row));
  });
  router.post('/users/:user_id/impersonation_tokens', (req, res) => {
    requireAdmin(req);
    const params = readParams(req.input, { name: required(str()), scopes: required(list(str())), expires_at: date() });
    const { row, token } = createImpersonationToken(ctx.db, pathInt(req.params.user_id, 'user_id'), {
      name: params.name,
      scopes: params.scopes,
      expiresAt: params.expires_at ?? null,
    });
    sendJson(res, 201, impersonationToken(row, token));
  });
  router.delete('/users/:user_id/impersonation_tokens/:token_id', (req, res) => {
    requireAdmin(req);
    revokeImpersonationToken(ctx.db, pathInt(req.params.user_id, 'user_id'), pathInt(req.params.token_id, 'impersonation_token_id'));
    sendNoContent(res);
  });
  return router;
}
