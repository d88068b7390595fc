import { Router } from 'express';
import { gpgKey } from '../../entities/keys.js';
import { addGpgKey, deleteGpgKey, getGpgKey, listGpgKeys } from '../../services/users/gpg-keys.js';
import type { SiteContext } from '../../site-context.js';
import { ACCOUNT_BASES } from './account-owner.js';
import { readPage, sendPage } from '../pagination.js';
import { pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** GPG keys of the current user (/user/gpg_keys) and, for admins, of any user (/users/:id/gpg_keys). */
export function userGpgKeysRouter(ctx: SiteContext): Router {
  const router = Router();
  for (const [base, ownerOf] of ACCOUNT_BASES) {
    router.get(`${base}/gpg_keys`, (req, res) => {
      const userId = ownerOf(req);
      const page = readPage(req.input);
      const result = listGpgKeys(ctx.db, userId, page);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map(gpgKey), result.total);
    });
    router.get(`${base}/gpg_keys/:key_id`, (req, res) => {
      const userId = ownerOf(req);
      sendJson(res, 200, gpgKey(getGpgKey(ctx.db, userId, pathInt(req.params.key_id, 'key_id'))));
    });
    // The SPEC promises an array here, but python-gitlab's gpgkeys.create fails on anything but an
    // object, and GitLab 10.x's code answers with the object too (GITLAB-NOTES 2.8, 3.2). The
    // /users/:id form takes `key`, as the SPEC's example sends, not the `key_id` its table lists.
    router.post(`${base}/gpg_keys`, async (req, res) => {
      const userId = ownerOf(req);
      const { key } = readParams(req.input, { key: required(str()) });
      sendJson(res, 201, gpgKey(await addGpgKey(ctx.db, userId, key)));
    });
    router.delete(`${base}/gpg_keys/:key_id`, (req, res) => {
      const userId = ownerOf(req);
      deleteGpgKey(ctx.db, userId, pathInt(req.params.key_id, 'key_id'));
      sendNoContent(res);
    });
    // GitLab's extra revoke routes (GITLAB-NOTES 1.2): 202, and the key is gone.
    router.post(`${base}/gpg_keys/:key_id/revoke`, (req, res) => {
      const userId = ownerOf(req);
      deleteGpgKey(ctx.db, userId, pathInt(req.params.key_id, 'key_id'));
      sendJson(res, 202, { message: '202 Accepted' });
    });
  }
  return router;
}
