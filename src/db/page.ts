import type { Db } from './connection.js';
import { prepare } from './connection.js';

/** One page of a list, as SQL LIMIT/OFFSET. */
export interface Page {
  readonly page: number;
  readonly perPage: number;
  readonly offset: number;
}

/** A page of rows and their total; null when there were too many to count (GitLab leaves X-Total out then). */
export interface Paged<T> {
  readonly rows: T[];
  readonly total: number | null;
}

/** Above this many rows a list is not counted, so no request counts a huge table. */
export const COUNT_LIMIT = 10_000;

/** Counts the rows of `fromWhere` (SQL after SELECT, e.g. "FROM users WHERE state = ?"), stopping past COUNT_LIMIT. */
export function countUpTo(db: Db, fromWhere: string, params: readonly unknown[]): number | null {
  const count = prepare(db, `SELECT count(*) FROM (SELECT 1 ${fromWhere} LIMIT ${COUNT_LIMIT + 1})`).pluck().get(...params) as number;
  return count > COUNT_LIMIT ? null : count;
}

/** Runs `SELECT <columns> <fromWhere> ORDER BY <order>` for one page, and counts it. */
export function selectPage<T>(db: Db, columns: string, fromWhere: string, order: string, params: readonly unknown[], page: Page): Paged<T> {
  const rows = prepare(db, `SELECT ${columns} ${fromWhere} ORDER BY ${order} LIMIT ? OFFSET ?`).all(...params, page.perPage, page.offset) as T[];
  return { rows, total: countUpTo(db, fromWhere, params) };
}
