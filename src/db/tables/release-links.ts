import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export const RELEASE_LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const;
export type ReleaseLinkType = (typeof RELEASE_LINK_TYPES)[number];

/** An asset link of a release (GitLab's Releases::Link). */
export interface ReleaseLinkRow {
  id: number;
  release_id: number;
  name: string;
  url: string;
  filepath: string | null;
  link_type: ReleaseLinkType;
  created_at: string;
  updated_at: string;
}

export type ReleaseLinkValues = Pick<ReleaseLinkRow, 'name' | 'url' | 'filepath' | 'link_type'>;

/** GitLab's Link.sorted: newest first. */
const SORTED = 'created_at DESC, id DESC';

/** The links of several releases, each release's newest first, one query. */
export function linksOfReleases(db: Db, releaseIds: readonly number[]): Map<number, ReleaseLinkRow[]> {
  const rows = prepare(db, `SELECT * FROM release_links WHERE release_id IN (SELECT value FROM json_each(?)) ORDER BY ${SORTED}`).all(JSON.stringify(releaseIds)) as ReleaseLinkRow[];
  const out = new Map<number, ReleaseLinkRow[]>();
  for (const row of rows) out.set(row.release_id, [...(out.get(row.release_id) ?? []), row]);
  return out;
}

export function listLinkRows(db: Db, releaseId: number, page: Page): Paged<ReleaseLinkRow> {
  return selectPage(db, '*', 'FROM release_links WHERE release_id = ?', SORTED, [releaseId], page);
}

export function findLinkRow(db: Db, releaseId: number, id: number): ReleaseLinkRow | undefined {
  return prepare(db, 'SELECT * FROM release_links WHERE release_id = ? AND id = ?').get(releaseId, id) as ReleaseLinkRow | undefined;
}

/** Which of name, url and filepath another link of the release already has (GitLab's uniqueness validations). */
export function takenLinkFields(db: Db, releaseId: number, values: ReleaseLinkValues, exceptId: number | null): ('name' | 'url' | 'filepath')[] {
  const row = prepare(
    db,
    `SELECT max(name = @name) AS name, max(url = @url) AS url, max(filepath IS NOT NULL AND filepath = @filepath) AS filepath
     FROM release_links WHERE release_id = @releaseId AND id IS NOT @exceptId`,
  ).get({ ...values, releaseId, exceptId }) as Record<'name' | 'url' | 'filepath', number | null>;
  return (['name', 'url', 'filepath'] as const).filter((field) => row[field] === 1);
}

export function insertLinkRow(db: Db, releaseId: number, values: ReleaseLinkValues, now: string): number {
  return Number(
    prepare(
      db,
      `INSERT INTO release_links (release_id, name, url, filepath, link_type, created_at, updated_at)
       VALUES (@releaseId, @name, @url, @filepath, @link_type, @now, @now)`,
    ).run({ ...values, releaseId, now }).lastInsertRowid,
  );
}

export function updateLinkRow(db: Db, id: number, values: ReleaseLinkValues, now: string): void {
  prepare(db, 'UPDATE release_links SET name = @name, url = @url, filepath = @filepath, link_type = @link_type, updated_at = @now WHERE id = @id').run({ ...values, id, now });
}

export function deleteLinkRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM release_links WHERE id = ?').run(id);
}
