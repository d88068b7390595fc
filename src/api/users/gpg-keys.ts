import type { Request, Response } from 'express';
import { gpgKey } from '../../entities/keys.js';
import { addGpgKey, deleteGpgKey, getGpgKey, listGpgKeys } from '../../services/users/gpg-keys.js';
import type { SiteContext } from '../../site-context.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { required, str } from '../params.js';

export const gpgKeyParams = paramsGuard('gpgKeyParams', { key: required(str()) });
export const gpgKeyIdParam = pathId('key_id');
import { sendJson, sendNoContent } from '../respond.js';
import { accountOwnerId } from './account-owner.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export function listUserGpgKeys(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  const page = paged.of(req);
  const result = listGpgKeys(ctx.db, userId, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(gpgKey), result.total);
}

export function showUserGpgKey(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  sendJson(res, 200, gpgKey(getGpgKey(ctx.db, userId, gpgKeyIdParam.of(req))));
}

/**
 * The SPEC promises an array here, but python-gitlab's gpgkeys.create fails on anything but an
 * object, and GitLab 10.x's code answers with the object too (GITLAB-NOTES 2.8, 3.2). The
 * /users/:id form takes `key`, as the SPEC's example sends, not the `key_id` its table lists.
 */
export async function addUserGpgKey(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const userId = accountOwnerId(req);
  const { key } = gpgKeyParams.of(req);
  sendJson(res, 201, gpgKey(await addGpgKey(ctx.db, userId, key)));
}

export function removeUserGpgKey(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  deleteGpgKey(ctx.db, userId, gpgKeyIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}

/** GitLab's extra revoke routes (GITLAB-NOTES 1.2): 202, and the key is gone. */
export function revokeUserGpgKey(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  deleteGpgKey(ctx.db, userId, gpgKeyIdParam.of(req), null);
  sendJson(res, 202, { message: '202 Accepted' });
}
