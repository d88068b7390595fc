import { AppError } from '../errors.js';

/**
 * 412 when the resource about to be deleted changed after the caller's If-Unmodified-Since (SPEC
 * "Errors"). HTTP dates carry whole seconds, so `lastUpdated` is compared at that precision: a
 * client that echoes the time it read is not refused over the milliseconds it could not send.
 * Called where the row is found, after the ability: in the handler when a route guard loaded it
 * (issue, merge request, project, group, board list, label), else in the deleting service.
 */
export function assertUnmodifiedSince(since: number | null, lastUpdated: string | null): void {
  if (since === null || !lastUpdated) return;
  if (Math.floor(Date.parse(lastUpdated) / 1000) * 1000 > since) throw new AppError('precondition_failed');
}
