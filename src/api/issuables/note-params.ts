import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf } from '../pagination.js';
import { badRequest } from '../../errors.js';
import { bool, datetime, hash, oneOf, required, str } from '../params.js';

/** GET .../notes: GitLab's order_by (created_at, updated_at) and sort, newest first by default. */
export const noteListParams = paramsGuard('noteListParams', { order_by: oneOf(['created_at', 'updated_at'] as const), sort: oneOf(['asc', 'desc'] as const), ...PAGE_PARAMS }, (params) => ({
  order: { orderBy: params.order_by ?? 'created_at', sort: params.sort ?? 'desc' },
  page: pageOf(params),
}));

/** The keys of a diff note's position GitLab requires (Grape: `position[base_sha] is missing`...). */
const POSITION_REQUIRED = ['base_sha', 'start_sha', 'head_sha', 'position_type'] as const;
const POSITION_KEYS = [...POSITION_REQUIRED, 'new_path', 'old_path', 'new_line', 'old_line', 'width', 'height', 'x', 'y'] as const;

/** A diff note's `position` hash (merge request threads), its lines as numbers; undefined when absent. */
function readPosition(raw: Record<string, string> | undefined) {
  if (raw === undefined) return undefined;
  for (const key of POSITION_REQUIRED) if (!raw[key]) throw badRequest(`position[${key}] is missing`);
  if (!['text', 'image'].includes(raw.position_type!)) throw badRequest('position[position_type] does not have a valid value');
  const position: Record<string, string | number | null> = {};
  for (const key of POSITION_KEYS) {
    const value = raw[key];
    if (value === undefined || value === '') position[key] = null;
    else if (['new_line', 'old_line', 'width', 'height', 'x', 'y'].includes(key)) {
      if (!/^\d+$/.test(value)) throw badRequest(`position[${key}] is invalid`);
      position[key] = Number(value);
    } else position[key] = value;
  }
  return position;
}

/** A new note or thread: `body` (400 `body is missing`), `created_at` (kept for owners and admins only), and a thread's diff `position`. */
export const noteCreateParams = paramsGuard('noteCreateParams', { body: required(str()), created_at: datetime(), position: hash() }, (params) => {
  const position = readPosition(params.position);
  return { body: params.body, ...(params.created_at !== undefined ? { createdAt: params.created_at } : {}), ...(position ? { position } : {}) };
});

/** PUT of a note: `body` (400 `body is missing`). */
export const noteUpdateParams = paramsGuard('noteUpdateParams', { body: required(str()) }, (params) => params.body);

/** POST .../award_emoji: `name` (400 `name is missing`). */
export const awardEmojiParams = paramsGuard('awardEmojiParams', { name: required(str()) }, (params) => params.name);

/**
 * PUT of a note in a discussion: a new `body`, or `resolved` (true or false), exactly one of them
 * (Grape's exactly_one_of: 400 `body, resolved are missing, exactly one parameter must be provided`
 * or `body, resolved are mutually exclusive`).
 */
export const discussionNoteUpdateParams = paramsGuard('discussionNoteUpdateParams', { body: str(), resolved: bool() }, (params) => {
  const given = [params.body, params.resolved].filter((value) => value !== undefined).length;
  if (given === 0) throw badRequest('body, resolved are missing, exactly one parameter must be provided');
  if (given === 2) throw badRequest('body, resolved are mutually exclusive');
  const change: { readonly resolved: boolean } | { readonly body: string } = params.resolved !== undefined ? { resolved: params.resolved } : { body: params.body! };
  return change;
});

/** PUT .../discussions/:discussion_id: `resolved` (400 `resolved is missing`). */
export const discussionResolveParams = paramsGuard('discussionResolveParams', { resolved: required(bool()) }, (params) => params.resolved);
