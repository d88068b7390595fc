import type { Request, Response } from 'express';
import { resourceAccessToken } from '../../entities/tokens.js';
import type { MemberSource } from '../../services/members/members.js';
import {
  createResourceAccessToken,
  getResourceAccessToken,
  listResourceAccessTokens,
  RESOURCE_TOKEN_LEVELS,
  RESOURCE_TOKEN_SCOPES,
  revokeResourceAccessToken,
  rotateResourceAccessToken,
} from '../../services/users/resource-access-tokens.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { date, int, list, oneOf, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { badRequest } from '../../errors.js';

/** Project and group access tokens (issue 26, item 7; GitLab's resource_access_tokens.rb), one set of handlers for both kinds. */

export const resourceTokenId = pathId('token_id');
export const resourceTokenListParams = paramsGuard('resourceTokenListParams', { state: oneOf(['active', 'inactive'] as const) });
export const resourceTokenRotateParams = paramsGuard('resourceTokenRotateParams', { expires_at: date() });

/** POST: `name` and `scopes` required; scopes and access_level from GitLab's lists (400 `<name> does not have a valid value`). */
export const resourceTokenCreateParams = paramsGuard(
  'resourceTokenCreateParams',
  { name: required(str()), scopes: required(list(oneOf(RESOURCE_TOKEN_SCOPES))), expires_at: date(), access_level: int(), description: str() },
  (params) => {
    if (!params.scopes.length) throw badRequest('scopes is empty');
    return params;
  },
);

type Kind = MemberSource['kind'];
const sourceOf = (kind: Kind, req: Request): MemberSource => (kind === 'group' ? { kind, group: groupOf(req) } : { kind, project: projectOf(req) });

export const listResourceTokens = (kind: Kind) => (ctx: SiteContext, req: Request, res: Response) => {
  const page = paged.of(req);
  const result = listResourceAccessTokens(ctx.db, requireActor(req), sourceOf(kind, req), resourceTokenListParams.of(req).state, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => resourceAccessToken(row)), result.total);
};

export const showResourceToken = (kind: Kind) => (ctx: SiteContext, req: Request, res: Response) => {
  sendJson(res, 200, resourceAccessToken(getResourceAccessToken(ctx.db, requireActor(req), sourceOf(kind, req), resourceTokenId.of(req))));
};

export const addResourceToken = (kind: Kind) => (ctx: SiteContext, req: Request, res: Response) => {
  const params = resourceTokenCreateParams.of(req);
  if (params.access_level !== undefined && !RESOURCE_TOKEN_LEVELS[kind].includes(params.access_level)) throw badRequest('access_level does not have a valid value');
  const input = { name: params.name, scopes: params.scopes, expiresAt: params.expires_at, accessLevel: params.access_level };
  const { row, token } = createResourceAccessToken(ctx.db, requireActor(req), sourceOf(kind, req), input, new URL(ctx.externalUrl).hostname);
  sendJson(res, 201, resourceAccessToken(row, token));
};

export const revokeResourceToken = (kind: Kind) => (ctx: SiteContext, req: Request, res: Response) => {
  revokeResourceAccessToken(ctx.db, requireActor(req), sourceOf(kind, req), resourceTokenId.of(req));
  sendNoContent(res);
};

/** POST .../access_tokens/:token_id/rotate (GitLab 16.0+): 200 with the new secret. */
export const rotateResourceToken = (kind: Kind) => (ctx: SiteContext, req: Request, res: Response) => {
  const { row, token } = rotateResourceAccessToken(ctx.db, requireActor(req), sourceOf(kind, req), resourceTokenId.of(req), resourceTokenRotateParams.of(req).expires_at);
  sendJson(res, 200, resourceAccessToken(row, token));
};
