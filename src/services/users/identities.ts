import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { deleteIdentity } from '../../db/tables/users.js';
import { notFound } from '../../errors.js';
import { getUser } from './users.js';

/**
 * Removes the user's identity for a provider (an LDAP dn, say), so they no longer sign in or sync
 * through it: 404 `User` for an unknown user, 404 `Identity` when they have none for the provider.
 */
export function removeIdentity(db: Db, userId: number, provider: string): void {
  inTransaction(db, () => {
    getUser(db, userId);
    if (!deleteIdentity(db, userId, provider)) throw notFound('Identity');
  });
}
