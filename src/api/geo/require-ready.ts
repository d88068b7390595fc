import type { RequestHandler } from 'express';
import { sendJson } from '../respond.js';

/**
 * On a secondary that has no database to serve yet (or is swapping one in), API and sign-in
 * requests get a 503 that says why; other paths (the probes among them) pass.
 */
export function requireReady(ready: () => boolean): RequestHandler {
  return (req, res, next) => {
    if (ready() || !(req.path.startsWith('/api/') || req.path === '/users/sign_in' || req.path === '/oauth/token')) return next();
    sendJson(res, 503, { message: '503 Service Unavailable - this secondary site is still copying its data from the primary' });
  };
}
