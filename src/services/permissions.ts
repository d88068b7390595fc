import type { Actor } from './authentication.js';

/** The one home of permission rules; families add their abilities here. */
export function isAdmin(actor: Actor | null): boolean {
  return !!actor && actor.user.admin === 1;
}


/** Namespaces: a user's own namespace and, for admins, every namespace. Group namespaces join with groups. */
export function canReadNamespace(actor: Actor | null, namespace: { kind: string; owner_id: number | null }): boolean {
  if (!actor) return false;
  return isAdmin(actor) || (namespace.kind === 'user' && namespace.owner_id === actor.user.id);
}
