import type { Express } from 'express';
import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';

/**
 * The HTTP server of an express app, whose requests and responses are born with the app's
 * prototypes. express otherwise swaps them in on every request (Object.setPrototypeOf in
 * app.handle), and V8 answers each swap with a new hidden class, so every property access on
 * req and res that follows misses its inline cache: ~0.1 ms of CPU per request on this kind of
 * machine, about as much as all the rest of express. app.handle still sets them, now a no-op.
 */
export function createAppServer(app: Express): Server {
  function AppRequest(this: unknown, socket: unknown) {
    return Reflect.construct(IncomingMessage, [socket], AppRequest);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: unknown, req: unknown, options: unknown) {
    return Reflect.construct(ServerResponse, [req, options], AppResponse);
  }
  AppResponse.prototype = app.response;
  return createServer({ IncomingMessage: AppRequest as unknown as typeof IncomingMessage, ServerResponse: AppResponse as unknown as typeof ServerResponse }, app);
}
