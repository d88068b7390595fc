import { valueGuard } from './value-guards.js';

/**
 * The `If-Unmodified-Since` header of a delete, in epoch milliseconds, or null without one (SPEC
 * "Errors": 412 when the header is given and the resource changed meanwhile; GitLab's
 * destroy_conditionally!). A value that is no HTTP date is ignored, as GitLab's
 * `Time.parse(...) rescue nil` ignores it.
 */
export const unmodifiedSince = valueGuard('unmodifiedSince', (_ctx, req): number | null => {
  const header = req.headers['if-unmodified-since'];
  if (typeof header !== 'string' || !header) return null;
  const since = Date.parse(header);
  return Number.isNaN(since) ? null : since;
});
