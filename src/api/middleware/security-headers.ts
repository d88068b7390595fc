import type { RequestHandler } from 'express';

/** Non-API responses (sign-in, uploads, avatars, git): nothing runs, nothing loads from elsewhere, no framing by other sites. */
const WEB_CSP = "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'";
/** API responses are data: a raw blob or file opened in a browser runs no script even if it is HTML. */
const API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/**
 * Headers on every response, errors included: no MIME sniffing (a raw file served as text/plain
 * stays text), no framing by other origins, no full URL leaked in Referer, and a restrictive
 * Content-Security-Policy. Set before anything else answers, so a 404 or a 500 carries them too.
 */
export function securityHeaders(): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'SAMEORIGIN');
    res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
    res.setHeader('Content-Security-Policy', req.path.startsWith('/api/') ? API_CSP : WEB_CSP);
    next();
  };
}
