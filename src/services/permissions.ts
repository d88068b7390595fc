import type { Actor } from './authentication.js';

/** The one home of permission rules; families add their abilities here. */
export function isAdmin(actor: Actor | null): boolean {
  return !!actor && actor.user.admin === 1;
}

/** Whether the actor may act on another user's account data (keys, emails, tokens): the owner or an admin. */
export function canManageUser(actor: Actor | null, userId: number): boolean {
  return !!actor && (actor.user.id === userId || isAdmin(actor));
}
