import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { awardsPage, deleteAwardRow, findAwardOf, hasAward, insertAward, type AwardableType, type AwardEmojiRow } from '../../db/tables/award-emoji.js';
import type { NoteRow } from '../../db/tables/notes.js';
import { AppError, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { canAwardEmoji, isAdmin } from '../permissions.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import type { Actor } from '../users/authentication.js';
import { normalizeEmojiName } from './emoji-names.js';
import { noteHomeOf, type Noteable } from './noteables.js';
import { resolveIssueTodos } from './todos.js';

/** What an award goes on: a noteable the caller may read, or one of its notes. */
export interface AwardTarget {
  readonly noteable: Noteable;
  readonly note: NoteRow | null;
}

const awardable = (target: AwardTarget): { type: AwardableType; id: number } =>
  target.note ? { type: 'Note', id: target.note.id } : { type: target.noteable.type, id: target.noteable.id };

/** A page of the target's awards, oldest first. */
export function listAwards(db: Db, target: AwardTarget, page: Page): Paged<AwardEmojiRow> {
  const { type, id } = awardable(target);
  return awardsPage(db, type, id, page);
}

/** One award of the target; 404 `Not found` otherwise. */
export function getAward(db: Db, target: AwardTarget, awardId: number): AwardEmojiRow {
  const { type, id } = awardable(target);
  const award = findAwardOf(db, type, id, awardId);
  if (!award) throw notFound();
  return award;
}

/**
 * Awards an emoji from the actor (GitLab's AwardEmojis::AddService behind API::AwardEmoji). GitLab
 * answers every refusal with a 404 that says why: `Award Emoji` when the actor may not award here
 * (a locked discussion for non-members, a system note), `Award Emoji Name is not included in the
 * list` for a name that is no emoji, `Award Emoji Name has already been taken` for the actor's
 * second award of the same emoji.
 */
export function awardEmoji(ctx: SiteContext, actor: Actor, target: AwardTarget, rawName: string): AwardEmojiRow {
  const { db } = ctx;
  if (!canAwardEmoji(db, actor, noteHomeOf(target.noteable), target.noteable, target.note)) throw notFound('Award Emoji');
  const name = normalizeEmojiName(rawName);
  if (name === null) throw notFound('Award Emoji Name is not included in the list');
  const { type, id } = awardable(target);
  return inTransaction(db, () => {
    if (hasAward(db, type, id, actor.user.id, name)) throw notFound('Award Emoji Name has already been taken');
    const now = nowIso();
    const awardId = insertAward(db, { name, user_id: actor.user.id, awardable_type: type, awardable_id: id, created_at: now, updated_at: now });
    // An award on an issue settles the awarder's todos about it (TodoService#new_award_emoji).
    if (type === 'Issue') resolveIssueTodos(db, actor.user, id);
    return findAwardOf(db, type, id, awardId)!;
  });
}

/** Takes an award back: its giver or an admin; anyone else gets GitLab's 401 (`unauthorized!`). */
export function removeAward(ctx: SiteContext, actor: Actor, target: AwardTarget, awardId: number, unmodifiedSince: number | null): void {
  const award = getAward(ctx.db, target, awardId);
  if (award.user_id !== actor.user.id && !isAdmin(actor)) throw new AppError('unauthorized');
  assertUnmodifiedSince(unmodifiedSince, award.updated_at);
  inTransaction(ctx.db, () => deleteAwardRow(ctx.db, award.id));
}
