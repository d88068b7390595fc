import type { Router } from 'express';
import { findVisibleProject } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { customAttributesRouter } from '../custom-attributes.js';
import { idOrPath } from '../params.js';

/** A project's custom attributes (admin only), with the routes every owner kind shares. */
export function projectCustomAttributesRouter(ctx: SiteContext): Router {
  return customAttributesRouter(ctx, {
    base: '/projects/:id',
    owner: { table: 'project_custom_attributes', column: 'project_id' },
    resolveOwner: (db, req) => findVisibleProject(db, req.actor, idOrPath(String(req.params.id))).id,
  });
}
