import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** What a rendered reference shows: the object's ids, its title (the link's title) and whether it is confidential. */
export interface ReferencedIssuable {
  id: number;
  iid: number;
  title: string;
  confidential: number;
}

const placeholders = (count: number) => Array.from({ length: count }, () => '?').join(', ');

export function selectIssuesByIid(db: Db, projectId: number, iids: readonly number[]): ReferencedIssuable[] {
  if (!iids.length) return [];
  return prepare(db, `SELECT id, iid, title, confidential FROM issues WHERE project_id = ? AND iid IN (${placeholders(iids.length)})`).all(projectId, ...iids) as ReferencedIssuable[];
}

export function selectMergeRequestsByIid(db: Db, projectId: number, iids: readonly number[]): ReferencedIssuable[] {
  if (!iids.length) return [];
  return prepare(db, `SELECT id, iid, title, 0 AS confidential FROM merge_requests WHERE target_project_id = ? AND iid IN (${placeholders(iids.length)})`).all(projectId, ...iids) as ReferencedIssuable[];
}

/** Users by username, case-insensitively (GitLab's user reference filter). */
export function selectUsersByUsername(db: Db, usernames: readonly string[]): { id: number; username: string; name: string }[] {
  if (!usernames.length) return [];
  return prepare(db, `SELECT id, username, name FROM users WHERE username COLLATE NOCASE IN (${placeholders(usernames.length)})`).all(...usernames) as {
    id: number;
    username: string;
    name: string;
  }[];
}
