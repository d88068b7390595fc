import type { Db } from '../../db/connection.js';
import { findNamespaceByPath, insertUserNamespace } from '../../db/tables/namespaces.js';
import { findGhostUserId, findUserByAnyEmail, findUserByUsername, insertUser } from '../../db/tables/users.js';
import { nowIso } from '../../storage/clock.js';
import { moveTrackerContributions } from '../issuables/user-contributions.js';

/**
 * The ghost user, GitLab's User.ghost: it holds what deleted users contributed, cannot sign in
 * (blocked, no password) and is hidden from user lookups. Made on first need, as `ghost` (or
 * `ghost1`, `ghost2`, ... should a namespace hold that path), in the caller's transaction.
 */
export function ghostUserId(db: Db): number {
  const existing = findGhostUserId(db);
  if (existing !== undefined) return existing;
  let username = 'ghost';
  for (let n = 1; findUserByUsername(db, username) || findNamespaceByPath(db, username) || findUserByAnyEmail(db, `${username}@example.com`); n++) username = `ghost${n}`;
  const now = nowIso();
  const id = insertUser(db, {
    username,
    email: `${username}@example.com`,
    name: 'Ghost User',
    state: 'blocked',
    ghost: 1,
    bio: 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.',
    created_at: now,
    updated_at: now,
  });
  insertUserNamespace(db, id, username, 'Ghost User', now);
  return id;
}

/**
 * Gives a user's contributions to the ghost user before the user is deleted (DELETE /users/:id
 * without hard_delete), in the deletion's transaction: the tracker's issues, notes, award emoji,
 * todos they caused and events (services/issuables/user-contributions.ts).
 */
export function moveContributionsToGhost(db: Db, userId: number): void {
  moveTrackerContributions(db, userId, ghostUserId(db));
}
