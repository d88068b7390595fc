import { valueGuard } from '../middleware/value-guards.js';
import { readPage } from '../pagination.js';
import { badRequest } from '../../errors.js';
import { bool, datetime, oneOf, readParams, required, str } from '../params.js';

/** GET .../notes: GitLab's order_by (created_at, updated_at) and sort, newest first by default. */
export const noteListParams = valueGuard('noteListParams', (_ctx, req) => {
  const params = readParams(req.input, { order_by: oneOf(['created_at', 'updated_at'] as const), sort: oneOf(['asc', 'desc'] as const) });
  return { order: { orderBy: params.order_by ?? 'created_at', sort: params.sort ?? 'desc' }, page: readPage(req.input) };
});

/** A new note or thread: `body` (400 `body is missing`), and `created_at` (kept for owners and admins only). */
export const noteCreateParams = valueGuard('noteCreateParams', (_ctx, req) => {
  const params = readParams(req.input, { body: required(str()), created_at: datetime() });
  return { body: params.body, ...(params.created_at !== undefined ? { createdAt: params.created_at } : {}) };
});

/** PUT of a note: `body` (400 `body is missing`). */
export const noteUpdateParams = valueGuard('noteUpdateParams', (_ctx, req) => readParams(req.input, { body: required(str()) }).body);

/** POST .../award_emoji: `name` (400 `name is missing`). */
export const awardParams = valueGuard('awardParams', (_ctx, req) => readParams(req.input, { name: required(str()) }).name);

/**
 * PUT of a note in a discussion: a new `body`, or `resolved` (true or false), exactly one of them
 * (Grape's exactly_one_of: 400 `body, resolved are missing, exactly one parameter must be provided`
 * or `body, resolved are mutually exclusive`).
 */
export const discussionNoteUpdateParams = valueGuard('discussionNoteUpdateParams', (_ctx, req) => {
  const params = readParams(req.input, { body: str(), resolved: bool() });
  const given = [params.body, params.resolved].filter((value) => value !== undefined).length;
  if (given === 0) throw badRequest('body, resolved are missing, exactly one parameter must be provided');
  if (given === 2) throw badRequest('body, resolved are mutually exclusive');
  const change: { readonly resolved: boolean } | { readonly body: string } = params.resolved !== undefined ? { resolved: params.resolved } : { body: params.body! };
  return change;
});
