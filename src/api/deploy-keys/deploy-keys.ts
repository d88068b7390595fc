import type { Request, Response } from 'express';
import { deployKey, projectDeployKey } from '../../entities/keys.js';
import {
  addProjectDeployKey,
  enableDeployKey,
  getProjectDeployKey,
  listDeployKeys,
  listProjectDeployKeys,
  removeProjectDeployKey,
  updateProjectDeployKey,
} from '../../services/deploy-keys/deploy-keys.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { bool, requireAtLeastOne, required, str } from '../params.js';

export const deployKeyListParams = paramsGuard('deployKeyListParams', { public: bool() });
export const deployKeyParams = paramsGuard('deployKeyParams', { key: required(str()), title: required(str()), can_push: bool() });
export const deployKeyEditParams = paramsGuard('deployKeyEditParams', { title: str(), can_push: bool() }, (params) => {
  requireAtLeastOne(params, ['title', 'can_push']);
  return params;
});
import { sendJson, sendNoContent } from '../respond.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export const deployKeyIdParam = pathId('key_id');

export function listAllDeployKeys(ctx: SiteContext, req: Request, res: Response): void {
  const params = deployKeyListParams.of(req);
  const page = paged.of(req);
  const result = listDeployKeys(ctx.db, params.public === true, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(deployKey), result.total);
}

export function listKeys(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listProjectDeployKeys(ctx.db, projectOf(req), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(projectDeployKey), result.total);
}

export function showKey(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, projectDeployKey(getProjectDeployKey(ctx.db, projectOf(req), deployKeyIdParam.of(req))));
}

export function addKey(ctx: SiteContext, req: Request, res: Response): void {
  const params = deployKeyParams.of(req);
  const row = addProjectDeployKey(ctx.db, requireActor(req), projectOf(req), { title: params.title, key: params.key, canPush: params.can_push === true });
  sendJson(res, 201, projectDeployKey(row));
}

export function editKey(ctx: SiteContext, req: Request, res: Response): void {
  const keyId = deployKeyIdParam.of(req);
  const params = deployKeyEditParams.of(req);
  const row = updateProjectDeployKey(ctx.db, requireActor(req), projectOf(req), keyId, { title: params.title, canPush: params.can_push });
  sendJson(res, 200, projectDeployKey(row));
}

export function enableKey(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, deployKey(enableDeployKey(ctx.db, requireActor(req), projectOf(req), deployKeyIdParam.of(req))));
}

export function removeKey(ctx: SiteContext, req: Request, res: Response): void {
  removeProjectDeployKey(ctx.db, projectOf(req), deployKeyIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}
