import { AppError } from '../errors.js';

/**
 * 412 when the resource about to be deleted changed after the caller's If-Unmodified-Since (SPEC
 * "Errors"). HTTP dates carry whole seconds, so `lastUpdated` is compared at that precision: a
 * client that echoes the time it read is not refused over the milliseconds it could not send.
 */
export function assertUnmodifiedSince(since: number | null, lastUpdated: string | null): void {
  if (since === null || !lastUpdated) return;
  if (Math.floor(Date.parse(lastUpdated) / 1000) * 1000 > since) throw new AppError('precondition_failed');
}
