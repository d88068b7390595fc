import { Router, type Request, type Response } from 'express';
import type { SiteContext } from '../site-context.js';

export type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * A check a route runs before its handler, in the order the route lists them: it refuses with an
 * AppError (401, 403, 404) or loads what the handler needs onto the request (the project, the
 * group). Named, so that the route table reads as data (docs, the authorization matrix).
 */
export interface Guard {
  readonly name: string;
  /** The body or query parameters the guard reads, where it declares them (the route index lists them). */
  readonly params?: readonly string[];
  check(ctx: SiteContext, req: Request): void;
}

/** Parses the request, calls one service and serializes its answer; guards have run. */
export type Handler = (ctx: SiteContext, req: Request, res: Response) => unknown;

/** One row of a domain's route table: method, path under /api/v4, guards, handler. */
export interface Route {
  readonly method: Method;
  readonly path: string;
  readonly guards: readonly Guard[];
  readonly handler: Handler;
}

/** A domain's routes as one express router: each route's guards run in order, then its handler. */
export function mountRoutes(ctx: SiteContext, routes: readonly Route[]): Router {
  const router = Router();
  for (const { method, path, guards, handler } of routes) {
    router[method](
      path,
      guards.length === 0
        ? (req: Request, res: Response) => handler(ctx, req, res)
        : (req: Request, res: Response) => {
            for (const guard of guards) guard.check(ctx, req);
            return handler(ctx, req, res);
          },
    );
  }
  return router;
}
