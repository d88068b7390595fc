import { Router } from 'express';
import { email } from '../../entities/keys.js';
import { addEmail, deleteEmail, getEmail, listEmails } from '../../services/users/emails.js';
import type { SiteContext } from '../../site-context.js';
import { ACCOUNT_BASES } from './account-owner.js';
import { readPage, sendPage } from '../pagination.js';
import { pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** Secondary emails of the current user (/user/emails) and, for admins, of any user (/users/:id/emails). */
export function userEmailsRouter(ctx: SiteContext): Router {
  const router = Router();
  for (const [base, ownerOf] of ACCOUNT_BASES) {
    router.get(`${base}/emails`, (req, res) => {
      const userId = ownerOf(req);
      const page = readPage(req.input);
      const result = listEmails(ctx.db, userId, page);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map(email), result.total);
    });
    router.get(`${base}/emails/:email_id`, (req, res) => {
      const userId = ownerOf(req);
      sendJson(res, 200, email(getEmail(ctx.db, userId, pathInt(req.params.email_id, 'email_id'))));
    });
    router.post(`${base}/emails`, (req, res) => {
      const userId = ownerOf(req);
      const params = readParams(req.input, { email: required(str()) });
      sendJson(res, 201, email(addEmail(ctx.db, userId, params.email)));
    });
    router.delete(`${base}/emails/:email_id`, (req, res) => {
      const userId = ownerOf(req);
      deleteEmail(ctx.db, userId, pathInt(req.params.email_id, 'email_id'));
      sendNoContent(res);
    });
  }
  return router;
}
