import { Router } from 'express';
import { sshKey, sshKeyWithUser } from '../../entities/keys.js';
import { addSshKey, deleteSshKey, getSshKey, getSshKeyWithOwner, listSshKeys } from '../../services/users/ssh-keys.js';
import type { SiteContext } from '../../site-context.js';
import { ACCOUNT_BASES } from './account-owner.js';
import { requireAdmin } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** SSH keys of the current user (/user/keys) and, for admins, of any user (/users/:id/keys), plus GET /keys/:id and GET /keys?fingerprint=. */
export function userSshKeysRouter(ctx: SiteContext): Router {
  const router = Router();
  for (const [base, ownerOf] of ACCOUNT_BASES) {
    router.get(`${base}/keys`, (req, res) => {
      const userId = ownerOf(req);
      const page = readPage(req.input);
      const result = listSshKeys(ctx.db, userId, page);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map(sshKey), result.total);
    });
    router.get(`${base}/keys/:key_id`, (req, res) => {
      const userId = ownerOf(req);
      sendJson(res, 200, sshKey(getSshKey(ctx.db, userId, pathInt(req.params.key_id, 'key_id'))));
    });
    router.post(`${base}/keys`, (req, res) => {
      const userId = ownerOf(req);
      const params = readParams(req.input, { title: required(str()), key: required(str()) });
      sendJson(res, 201, sshKey(addSshKey(ctx.db, userId, params)));
    });
    router.delete(`${base}/keys/:key_id`, (req, res) => {
      const userId = ownerOf(req);
      deleteSshKey(ctx.db, userId, pathInt(req.params.key_id, 'key_id'));
      sendNoContent(res);
    });
  }
  router.get('/keys', (req, res) => {
    requireAdmin(req);
    const { fingerprint } = readParams(req.input, { fingerprint: required(str()) });
    const { key, user, identities } = getSshKeyWithOwner(ctx.db, { fingerprint });
    sendJson(res, 200, sshKeyWithUser(key, user, identities, ctx));
  });
  router.get('/keys/:id', (req, res) => {
    requireAdmin(req);
    const { key, user, identities } = getSshKeyWithOwner(ctx.db, { id: pathInt(req.params.id, 'id') });
    sendJson(res, 200, sshKeyWithUser(key, user, identities, ctx));
  });
  return router;
}
