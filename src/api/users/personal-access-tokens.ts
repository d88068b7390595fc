import type { Request, Response } from 'express';
import { personalAccessToken } from '../../entities/tokens.js';
import {
  createOwnLimitedToken,
  createUserPersonalAccessToken,
  getPersonalAccessToken,
  listPersonalAccessTokens,
  revokePersonalAccessTokenById,
  rotatePersonalAccessToken,
} from '../../services/users/personal-access-tokens.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathIdOrSelf } from '../middleware/value-guards.js';
import { bool, date, datetime, int, oneOf, str } from '../params.js';
import { userTokenParams, tokenUserIdParam } from './impersonation-tokens.js';
import { sendJson, sendNoContent } from '../respond.js';

/** `:id` is a token id or the keyword `self` (the token the request came with). */
export const personalTokenIdParam = pathIdOrSelf('id');

export const personalTokenListParams = paramsGuard('personalTokenListParams', {
  user_id: int({ min: 1 }),
  revoked: bool(),
  state: oneOf(['active', 'inactive'] as const),
  created_before: datetime(),
  created_after: datetime(),
  last_used_before: datetime(),
  last_used_after: datetime(),
  expires_before: date(),
  expires_after: date(),
  search: str(),
});

export function listPersonalTokens(ctx: SiteContext, req: Request, res: Response): void {
  const params = personalTokenListParams.of(req);
  const page = paged.of(req);
  const result = listPersonalAccessTokens(
    ctx.db,
    requireActor(req),
    {
      userId: params.user_id,
      revoked: params.revoked,
      state: params.state,
      createdBefore: params.created_before,
      createdAfter: params.created_after,
      lastUsedBefore: params.last_used_before,
      lastUsedAfter: params.last_used_after,
      expiresBefore: params.expires_before,
      expiresAfter: params.expires_after,
      search: params.search || undefined,
    },
    page,
  );
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => personalAccessToken(row)), result.total);
}

export function showPersonalToken(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, personalAccessToken(getPersonalAccessToken(ctx.db, requireActor(req), personalTokenIdParam.of(req))));
}

export function revokePersonalToken(ctx: SiteContext, req: Request, res: Response): void {
  revokePersonalAccessTokenById(ctx.db, requireActor(req), personalTokenIdParam.of(req));
  sendNoContent(res);
}

/** POST /users/:user_id/personal_access_tokens (admins): the secret is in this answer only. */
export function addUserPersonalToken(ctx: SiteContext, req: Request, res: Response): void {
  const params = userTokenParams.of(req);
  const { row, token } = createUserPersonalAccessToken(ctx.db, tokenUserIdParam.of(req), {
    name: params.name,
    scopes: params.scopes,
    expiresAt: params.expires_at ?? null,
  });
  sendJson(res, 201, personalAccessToken(row, token));
}

/** POST /user/personal_access_tokens: 201 with the secret, in this answer only. */
export function addOwnPersonalToken(ctx: SiteContext, req: Request, res: Response): void {
  const params = userTokenParams.of(req);
  const { row, token } = createOwnLimitedToken(ctx.db, requireActor(req), { name: params.name, scopes: params.scopes, expiresAt: params.expires_at ?? null });
  sendJson(res, 201, personalAccessToken(row, token));
}

export const personalTokenRotateParams = paramsGuard('personalTokenRotateParams', { expires_at: date() });

/** POST /personal_access_tokens/:id/rotate and /self/rotate: 200 with the successor's secret. */
export function rotatePersonalToken(ctx: SiteContext, req: Request, res: Response): void {
  const { row, token } = rotatePersonalAccessToken(ctx.db, requireActor(req), personalTokenIdParam.of(req), personalTokenRotateParams.of(req).expires_at);
  sendJson(res, 200, personalAccessToken(row, token));
}
