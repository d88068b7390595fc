import type { Request, Response } from 'express';
import { deployKeyWithUser, sshKey, sshKeyWithUser } from '../../entities/keys.js';
import { addSshKey, deleteSshKey, findAnyKeyByFingerprint, getSshKey, getSshKeyWithOwner, listSshKeys } from '../../services/users/ssh-keys.js';
import type { SiteContext } from '../../site-context.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { required, str } from '../params.js';

export const sshKeyParams = paramsGuard('sshKeyParams', { title: required(str()), key: required(str()) });
export const sshKeyFingerprintParams = paramsGuard('sshKeyFingerprintParams', { fingerprint: required(str()) });
export const sshKeyIdParam = pathId('key_id');
/** The `:id` of `/keys/:id`: a key of any user (admins). */
export const anyKeyIdParam = pathId('id');
import { sendJson, sendNoContent } from '../respond.js';
import { accountOwnerId } from './account-owner.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

export function listUserKeys(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  const page = paged.of(req);
  const result = listSshKeys(ctx.db, userId, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(sshKey), result.total);
}

export function showUserKey(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  sendJson(res, 200, sshKey(getSshKey(ctx.db, userId, sshKeyIdParam.of(req))));
}

export function addUserKey(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  const params = sshKeyParams.of(req);
  sendJson(res, 201, sshKey(addSshKey(ctx.db, userId, params)));
}

export function removeUserKey(ctx: SiteContext, req: Request, res: Response): void {
  const userId = accountOwnerId(req);
  deleteSshKey(ctx.db, userId, sshKeyIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}

/** GET /keys?fingerprint=: a user's SSH key, else a deploy key with the projects it is enabled in (keys.rb). */
export function findKeyByFingerprint(ctx: SiteContext, req: Request, res: Response): void {
  const found = findAnyKeyByFingerprint(ctx.db, sshKeyFingerprintParams.of(req).fingerprint);
  sendJson(res, 200, found.kind === 'ssh' ? sshKeyWithUser(found.key, found.user, found.identities, ctx) : deployKeyWithUser(found.key, found.user, found.links, ctx));
}

export function showKeyWithOwner(ctx: SiteContext, req: Request, res: Response): void {
  const { key, user, identities } = getSshKeyWithOwner(ctx.db, { id: anyKeyIdParam.of(req) });
  sendJson(res, 200, sshKeyWithUser(key, user, identities, ctx));
}
