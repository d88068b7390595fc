import type { Request } from 'express';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, forbidden } from '../../errors.js';
import { findVisibleGroup, findVisibleProject } from '../../services/find-visible.js';
import { can, isAdmin, isProjectAbility, type GroupAbility, type ProjectAbility } from '../../services/permissions.js';
import type { Actor } from '../../services/users/authentication.js';
import { idOrPath } from '../params.js';
import type { Guard } from '../routes.js';

/**
 * The guards routes list, in GitLab's order (GITLAB-NOTES 1.4): authenticate (401), find the
 * subject (404 when missing or invisible), then authorize (403). Permission rules themselves
 * live in services/permissions.ts; these only ask it.
 */

/** The signed-in actor, or 401. */
export function requireActor(req: Request): Actor {
  if (!req.actor) throw new AppError('unauthorized');
  return req.actor;
}

/** Admin-only: 401 for anonymous callers, 403 for everyone else who is not an admin. */
export function requireAdmin(req: Request): Actor {
  const actor = requireActor(req);
  if (!isAdmin(actor)) throw forbidden();
  return actor;
}

/**
 * Routes the ee edition has and ce does not (creating and deleting boards, group boards, group hooks,
 * merge request approvals): in ce
 * they answer as an unknown route does, 404 `{error}`, before anything else.
 */
export const eeRoute: Guard = {
  name: 'eeRoute',
  check: (ctx) => {
    if (ctx.config.edition !== 'ee') throw new AppError('route_not_found');
  },
};

export const signedIn: Guard = { name: 'signedIn', check: (_ctx, req) => void requireActor(req) };
export const admin: Guard = { name: 'admin', check: (_ctx, req) => void requireAdmin(req) };

/** The project the path parameter names (id or URL-encoded full path), loaded once onto the request; 404 `Project` when missing or invisible. */
export function loadProject(param = 'id'): Guard {
  return {
    name: `loadProject(:${param})`,
    check: (ctx, req) => {
      req.project ??= findVisibleProject(ctx.db, req.actor, idOrPath(String(req.params[param])));
    },
  };
}

/** The group the path parameter names, loaded once onto the request; 404 `Group` when missing or invisible. */
export function loadGroup(param = 'id'): Guard {
  return {
    name: `loadGroup(:${param})`,
    check: (ctx, req) => {
      req.group ??= findVisibleGroup(ctx.db, req.actor, idOrPath(String(req.params[param])));
    },
  };
}

/** 403 unless the actor may do `ability` to the loaded project (or group): list it after loadProject (or loadGroup). */
export function requireAbility(ability: ProjectAbility | GroupAbility): Guard {
  const onProject = isProjectAbility(ability);
  return {
    name: `requireAbility(${ability})`,
    check: (ctx, req) => {
      const allowed = onProject ? can(ctx.db, req.actor, ability as ProjectAbility, projectOf(req)) : can(ctx.db, req.actor, ability as GroupAbility, groupOf(req));
      if (!allowed) throw forbidden();
    },
  };
}

/**
 * As requireAbility on a project, but refusing with 401, where GitLab's endpoint answers
 * `unauthorized! unless can?(...)` in a `before` block (remote_mirrors.rb).
 */
export function unauthorizedUnless(ability: ProjectAbility): Guard {
  return {
    name: `unauthorizedUnless(${ability})`,
    check: (ctx, req) => {
      if (!can(ctx.db, req.actor, ability, projectOf(req))) throw new AppError('unauthorized');
    },
  };
}

/** The project a loadProject guard put on the request; a route without one is a programming error. */
export function projectOf(req: Request): ProjectRow {
  if (!req.project) throw new Error(`route ${req.method} ${req.path} reads a project but has no loadProject guard`);
  return req.project;
}

/** The group a loadGroup guard put on the request. */
export function groupOf(req: Request): NamespaceRow {
  if (!req.group) throw new Error(`route ${req.method} ${req.path} reads a group but has no loadGroup guard`);
  return req.group;
}
