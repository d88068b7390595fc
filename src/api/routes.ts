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

/** Told of a body or query parameter a route read (its guards or handler) without declaring it. */
export type UndeclaredRead = (route: string, param: string) => void;

let undeclaredRead: UndeclaredRead | null = null;

/**
 * Records, until the returned function is called, every parameter a route reads that none of its
 * guards declares (test/integration/route-params.test.ts): while it records, each request's
 * `req.input` is wrapped in a Proxy that notes the names read; otherwise nothing is wrapped.
 */
export function recordUndeclaredReads(listener: UndeclaredRead): () => void {
  undeclaredRead = listener;
  return () => void (undeclaredRead = null);
}

function watchInput(req: Request, route: string, declared: ReadonlySet<string>, listener: UndeclaredRead): void {
  const note = (key: string | symbol) => {
    if (typeof key === 'string' && !declared.has(key)) listener(route, key);
  };
  req.input = new Proxy(req.input, {
    get: (target, key, receiver) => (note(key), Reflect.get(target, key, receiver)),
    has: (target, key) => (note(key), Reflect.has(target, key)),
  });
}

/** A domain's routes as one express router: each route's guards run in order, then its handler. */
export function mountRoutes(ctx: SiteContext, routes: readonly Route[]): Router {
  const router = Router();
  for (const { method, path, guards, handler } of routes) {
    const route = `${method} ${path}`;
    const declared = new Set(guards.flatMap((guard) => guard.params ?? []));
    router[method](path, (req: Request, res: Response) => {
      req.declaredParams = declared;
      if (undeclaredRead) watchInput(req, route, declared, undeclaredRead);
      for (const guard of guards) guard.check(ctx, req);
      return handler(ctx, req, res);
    });
  }
  return router;
}
