import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';
import type { UserRow } from './users.js';

/** What a request is for: a group's or a project's membership. */
export type RequestSource = { group_id: number } | { project_id: number };

/** A pending request with the requesting user's row (the entity shows the user). */
export type AccessRequestRow = UserRow & { requested_at: string };

const sourceFilter = (source: RequestSource) => ('group_id' in source ? 'r.group_id = @source' : 'r.project_id = @source');
const sourceId = (source: RequestSource) => ('group_id' in source ? source.group_id : source.project_id);

/** A source's pending requests, oldest first. */
export function selectAccessRequests(db: Db, source: RequestSource, page: Page): Paged<AccessRequestRow> {
  return selectPage(db, 'u.*, r.requested_at', `FROM access_requests r JOIN users u ON u.id = r.user_id WHERE ${sourceFilter(source)}`, 'r.id', [{ source: sourceId(source) }], page);
}

export function findAccessRequest(db: Db, source: RequestSource, userId: number): AccessRequestRow | undefined {
  return prepare(db, `SELECT u.*, r.requested_at FROM access_requests r JOIN users u ON u.id = r.user_id WHERE ${sourceFilter(source)} AND r.user_id = @user`).get({
    source: sourceId(source),
    user: userId,
  }) as AccessRequestRow | undefined;
}

export function insertAccessRequest(db: Db, source: RequestSource, userId: number, now: string): void {
  prepare(db, 'INSERT INTO access_requests (group_id, project_id, user_id, requested_at) VALUES (@group_id, @project_id, @user, @now)').run({
    group_id: null,
    project_id: null,
    ...source,
    user: userId,
    now,
  });
}

export function deleteAccessRequest(db: Db, source: RequestSource, userId: number): void {
  prepare(db, `DELETE FROM access_requests AS r WHERE ${sourceFilter(source)} AND r.user_id = @user`).run({ source: sourceId(source), user: userId });
}
