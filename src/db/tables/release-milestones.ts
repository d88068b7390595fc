import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** The milestone ids of several releases, in milestone id order, one query. */
export function milestoneIdsOfReleases(db: Db, releaseIds: readonly number[]): Map<number, number[]> {
  const rows = prepare(db, 'SELECT release_id, milestone_id FROM release_milestones WHERE release_id IN (SELECT value FROM json_each(?)) ORDER BY milestone_id').all(
    JSON.stringify(releaseIds),
  ) as { release_id: number; milestone_id: number }[];
  const out = new Map<number, number[]>();
  for (const row of rows) out.set(row.release_id, [...(out.get(row.release_id) ?? []), row.milestone_id]);
  return out;
}

/** Replaces a release's milestones. */
export function setReleaseMilestones(db: Db, releaseId: number, milestoneIds: readonly number[]): void {
  prepare(db, 'DELETE FROM release_milestones WHERE release_id = ?').run(releaseId);
  const insert = prepare(db, 'INSERT INTO release_milestones (release_id, milestone_id) VALUES (?, ?)');
  for (const id of new Set(milestoneIds)) insert.run(releaseId, id);
}

/** The issue counts of milestones (GitLab's MilestoneWithStats issue_stats): all and closed. */
export function milestoneIssueStats(db: Db, milestoneIds: readonly number[]): Map<number, { total: number; closed: number }> {
  const rows = prepare(
    db,
    `SELECT milestone_id, count(*) AS total, sum(state = 'closed') AS closed FROM issues
     WHERE milestone_id IN (SELECT value FROM json_each(?)) GROUP BY milestone_id`,
  ).all(JSON.stringify(milestoneIds)) as { milestone_id: number; total: number; closed: number }[];
  return new Map(rows.map((row) => [row.milestone_id, { total: row.total, closed: row.closed }]));
}
