import type { Express } from 'express';
import { IncomingMessage, ServerResponse, createServer, type Server } from 'node:http';

/**
 * The HTTP server of an express app whose requests and responses are born with express's
 * methods. express otherwise swaps their prototypes on every request (Object.setPrototypeOf in
 * app.handle), after which V8 misses its inline caches on every property of req and res: about
 * a third of the CPU of an API write here. Subclasses of node's classes get the app's request
 * and response properties copied onto their prototypes, and become the app's prototypes, so
 * express's swap sets the prototype each object already has.
 */
export function createAppServer(app: Express): Server {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  copyChain(app.request, IncomingMessage.prototype, AppRequest.prototype);
  copyChain(app.response, ServerResponse.prototype, AppResponse.prototype);
  // `constructor` stays node's, as under express's own prototypes: undici, proxying a request as
  // a body (forward-writes.ts), knows a server request by it and then spares its socket.
  Object.defineProperty(AppRequest.prototype, 'constructor', { value: IncomingMessage, writable: true, configurable: true });
  Object.defineProperty(AppResponse.prototype, 'constructor', { value: ServerResponse, writable: true, configurable: true });
  Object.assign(app, { request: AppRequest.prototype, response: AppResponse.prototype });
  return createServer({ IncomingMessage: AppRequest, ServerResponse: AppResponse }, app);
}

/** Copies the properties `from` and its prototypes define above `base` onto `to`, nearest last so they win. */
function copyChain(from: object, base: object, to: object): void {
  const chain: object[] = [];
  for (let object = from; object !== base; object = Object.getPrototypeOf(object) as object) chain.unshift(object);
  for (const object of chain) {
    for (const key of Reflect.ownKeys(object)) Object.defineProperty(to, key, Object.getOwnPropertyDescriptor(object, key)!);
  }
}
