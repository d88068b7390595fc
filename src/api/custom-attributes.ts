import type { Request } from 'express';
import type { AttributeOwner } from '../db/tables/custom-attributes.js';
import {
  deleteCustomAttribute,
  getCustomAttribute,
  listCustomAttributes,
  setCustomAttribute,
} from '../services/custom-attributes.js';
import type { SiteContext } from '../site-context.js';
import { admin } from './middleware/guards.js';
import { paramsGuard } from './middleware/value-guards.js';
import { required, str } from './params.js';

const customAttributeParams = paramsGuard('customAttributeParams', { value: required(str()) });
import { sendJson, sendNoContent } from './respond.js';
import type { Guard, Handler, Route } from './routes.js';

/** Whose custom attributes a family of routes serves: the owner's table, and its id once the route's guards have run. */
export interface AttributeSubject {
  readonly owner: AttributeOwner;
  ownerId(ctx: SiteContext, req: Request): number;
}

/**
 * `<base>/custom_attributes[/:key]` of one owner kind: admin only, as in GitLab (401 anonymous,
 * 403 non-admin), then `loaders` find the owner (404) before its id is read.
 */
export function customAttributesRoutes(base: string, loaders: readonly Guard[], subject: AttributeSubject): Route[] {
  const guards = [admin, ...loaders];
  return [
    { method: 'get', path: `${base}/custom_attributes`, guards, handler: listAttributes(subject) },
    { method: 'get', path: `${base}/custom_attributes/:key`, guards, handler: showAttribute(subject) },
    { method: 'put', path: `${base}/custom_attributes/:key`, guards: [...guards, customAttributeParams], handler: setAttribute(subject) },
    { method: 'delete', path: `${base}/custom_attributes/:key`, guards, handler: removeAttribute(subject) },
  ];
}


const listAttributes =
  ({ owner, ownerId }: AttributeSubject): Handler =>
  (ctx, req, res) =>
    sendJson(res, 200, listCustomAttributes(ctx.db, owner, ownerId(ctx, req)));

const showAttribute =
  ({ owner, ownerId }: AttributeSubject): Handler =>
  (ctx, req, res) =>
    sendJson(res, 200, getCustomAttribute(ctx.db, owner, ownerId(ctx, req), String(req.params.key)));

const setAttribute =
  ({ owner, ownerId }: AttributeSubject): Handler =>
  (ctx, req, res) => {
    const id = ownerId(ctx, req);
    const { value } = customAttributeParams.of(req);
    sendJson(res, 200, setCustomAttribute(ctx.db, owner, id, String(req.params.key), value));
  };

const removeAttribute =
  ({ owner, ownerId }: AttributeSubject): Handler =>
  (ctx, req, res) => {
    deleteCustomAttribute(ctx.db, owner, ownerId(ctx, req), String(req.params.key));
    sendNoContent(res);
  };
