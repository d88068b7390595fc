import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { IssueRow } from './issues.js';

/** A link between two issues (GitLab's IssueLink); `is_blocked_by` is stored as `blocks` the other way round. */
export interface IssueLinkRow {
  id: number;
  source_id: number;
  target_id: number;
  link_type: 'relates_to' | 'blocks';
  created_at: string;
  updated_at: string;
}

/** An issue linked to another, with the link it is reached through (GitLab's linked_issues_select). */
export interface LinkedIssueRow extends IssueRow {
  issue_link_id: number;
  issue_link_source_id: number;
  issue_link_type: IssueLinkRow['link_type'];
  issue_link_created_at: string;
  issue_link_updated_at: string;
}

export function insertIssueLink(db: Db, link: Omit<IssueLinkRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO issue_links (source_id, target_id, link_type, created_at, updated_at) VALUES (@source_id, @target_id, @link_type, @created_at, @updated_at)').run(link)
      .lastInsertRowid,
  );
}

export function deleteIssueLinkRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM issue_links WHERE id = ?').run(id);
}

/** The link `id` when the issue is its source or its target (GitLab's for_source_or_target). */
export function findIssueLinkOf(db: Db, issueId: number, id: number): IssueLinkRow | undefined {
  return prepare(db, 'SELECT * FROM issue_links WHERE id = ? AND (source_id = ? OR target_id = ?)').get(id, issueId, issueId) as IssueLinkRow | undefined;
}

/** The link between two issues in either direction, if any. */
export function findIssueLinkBetween(db: Db, a: number, b: number): IssueLinkRow | undefined {
  return prepare(db, 'SELECT * FROM issue_links WHERE (source_id = ? AND target_id = ?) OR (source_id = ? AND target_id = ?)').get(a, b, b, a) as IssueLinkRow | undefined;
}

/** How many links an issue has, either way (GitLab caps them, MAX_LINKS_COUNT). */
export function countIssueLinks(db: Db, issueId: number): number {
  return prepare(db, 'SELECT (SELECT count(*) FROM issue_links WHERE source_id = ?) + (SELECT count(*) FROM issue_links WHERE target_id = ?)').pluck().get(issueId, issueId) as number;
}

/** The issues linked to one, in the order their links were made (GitLab reorders by issue_link_id). */
export function linkedIssues(db: Db, issueId: number): LinkedIssueRow[] {
  const columns = 'i.*, l.id AS issue_link_id, l.source_id AS issue_link_source_id, l.link_type AS issue_link_type, l.created_at AS issue_link_created_at, l.updated_at AS issue_link_updated_at';
  return prepare(
    db,
    `SELECT ${columns} FROM issue_links l JOIN issues i ON i.id = l.target_id WHERE l.source_id = @id
     UNION ALL
     SELECT ${columns} FROM issue_links l JOIN issues i ON i.id = l.source_id WHERE l.target_id = @id
     ORDER BY issue_link_id`,
  ).all({ id: issueId }) as LinkedIssueRow[];
}

/** Per issue, how many open issues it blocks (GitLab's blocking_issues_count), for a page of issues. */
export function blockingIssuesCounts(db: Db, issueIds: readonly number[]): Map<number, number> {
  if (!issueIds.length) return new Map();
  const rows = prepare(
    db,
    `SELECT l.source_id AS id, count(*) AS n FROM issue_links l JOIN issues t ON t.id = l.target_id
     WHERE l.source_id IN (SELECT value FROM json_each(?)) AND l.link_type = 'blocks' AND t.state = 'opened' GROUP BY l.source_id`,
  ).all(JSON.stringify(issueIds)) as { id: number; n: number }[];
  return new Map(rows.map((row) => [row.id, row.n]));
}
