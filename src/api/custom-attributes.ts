import { Router, type Request } from 'express';
import type { Db } from '../db/connection.js';
import type { AttributeOwner } from '../db/tables/custom-attributes.js';
import {
  deleteCustomAttribute,
  getCustomAttribute,
  listCustomAttributes,
  setCustomAttribute,
} from '../services/custom-attributes.js';
import type { SiteContext } from '../site-context.js';
import { requireAdmin } from './middleware/guards.js';
import { readParams, required, str } from './params.js';
import { sendJson, sendNoContent } from './respond.js';

/** The custom attributes endpoints of one owner kind (`/users/:id/custom_attributes`...); admin only, as in GitLab. */
export function customAttributesRouter(
  ctx: SiteContext,
  options: { base: string; owner: AttributeOwner; resolveOwner: (db: Db, req: Request) => number },
): Router {
  const router = Router();
  const { base, owner } = options;
  const ownerOf = (req: Request) => {
    requireAdmin(req);
    return options.resolveOwner(ctx.db, req);
  };
  router.get(`${base}/custom_attributes`, (req, res) => {
    sendJson(res, 200, listCustomAttributes(ctx.db, owner, ownerOf(req)));
  });
  router.get(`${base}/custom_attributes/:key`, (req, res) => {
    sendJson(res, 200, getCustomAttribute(ctx.db, owner, ownerOf(req), String(req.params.key)));
  });
  router.put(`${base}/custom_attributes/:key`, (req, res) => {
    const ownerId = ownerOf(req);
    const { value } = readParams(req.input, { value: required(str()) });
    sendJson(res, 200, setCustomAttribute(ctx.db, owner, ownerId, String(req.params.key), value));
  });
  router.delete(`${base}/custom_attributes/:key`, (req, res) => {
    deleteCustomAttribute(ctx.db, owner, ownerOf(req), String(req.params.key));
    sendNoContent(res);
  });
  return router;
}
