import type { Db } from '../../db/connection.js';
import { pageUserMemberships, type UserMembershipRow } from '../../db/tables/members.js';
import type { Page, Paged } from '../../db/page.js';
import { getUser } from '../users/users.js';

/** GET /users/:user_id/memberships (admin): the user's direct memberships, of `type` only when given; 404 `User` when missing. */
export function listUserMemberships(db: Db, userId: number, type: 'Project' | 'Namespace' | undefined, page: Page): Paged<UserMembershipRow> {
  getUser(db, userId);
  return pageUserMemberships(db, userId, type, page);
}
