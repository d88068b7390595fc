import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { Page, Paged } from '../page.js';
import { selectPage } from '../page.js';

export interface EpicRow {
  id: number;
  group_id: number;
  iid: number;
  title: string;
  description: string | null;
  author_id: number;
  state: 'opened' | 'closed';
  start_date: string | null;
  end_date: string | null;
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

export type EpicColumns = Partial<Omit<EpicRow, 'id'>>;

export function findEpicById(db: Db, id: number): EpicRow | undefined {
  return prepare(db, 'SELECT * FROM epics WHERE id = ?').get(id) as EpicRow | undefined;
}

export function findEpicByIid(db: Db, groupId: number, iid: number): EpicRow | undefined {
  return prepare(db, 'SELECT * FROM epics WHERE group_id = ? AND iid = ?').get(groupId, iid) as EpicRow | undefined;
}

export function insertEpic(db: Db, columns: EpicColumns & Pick<EpicRow, 'group_id' | 'iid' | 'title' | 'author_id' | 'created_at' | 'updated_at'>): number {
  const names = Object.keys(columns).sort();
  return Number(prepare(db, `INSERT INTO epics (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`).run(columns).lastInsertRowid);
}

export function updateEpicRow(db: Db, id: number, columns: EpicColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE epics SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

/** Deletes the row; its epic_issues follow through the foreign key. */
export function deleteEpicRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM epics WHERE id = ?').run(id);
}

/** The ids of the epics of these groups, for the polymorphic rows a group delete removes with them. */
export function epicIdsOfGroups(db: Db, groupIds: readonly number[]): number[] {
  return prepare(db, 'SELECT id FROM epics WHERE group_id IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(groupIds)) as number[];
}

export function epicsByIds(db: Db, ids: readonly number[]): Map<number, EpicRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, 'SELECT * FROM epics WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify([...new Set(ids)])) as EpicRow[];
  return new Map(rows.map((row) => [row.id, row]));
}

/** The filters of a group's epic list; `labelIds` holds one id set per wanted label title (an epic must carry one of each). */
export interface EpicListFilter {
  readonly groupId: number;
  readonly authorId?: number;
  readonly state?: 'opened' | 'closed';
  readonly search?: string;
  readonly labelIds?: readonly (readonly number[])[];
  readonly orderBy: 'created_at' | 'updated_at';
  readonly sort: 'asc' | 'desc';
}

/** A page of a group's epics (indexes epics_group_created / epics_group_updated). */
export function epicsPage(db: Db, filter: EpicListFilter, page: Page): Paged<EpicRow> {
  const where = ['group_id = ?'];
  const params: unknown[] = [filter.groupId];
  if (filter.authorId !== undefined) (where.push('author_id = ?'), params.push(filter.authorId));
  if (filter.state) (where.push('state = ?'), params.push(filter.state));
  if (filter.search) {
    where.push("(title LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')");
    const like = `%${filter.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    params.push(like, like);
  }
  for (const ids of filter.labelIds ?? []) {
    where.push("EXISTS (SELECT 1 FROM label_links ll WHERE ll.target_type = 'Epic' AND ll.target_id = epics.id AND ll.label_id IN (SELECT value FROM json_each(?)))");
    params.push(JSON.stringify(ids));
  }
  const direction = filter.sort === 'asc' ? 'ASC' : 'DESC';
  return selectPage<EpicRow>(db, '*', `FROM epics WHERE ${where.join(' AND ')}`, `${filter.orderBy} ${direction}, id ${direction}`, params, page);
}

/** The ids of the epics a user wrote. */
export function epicIdsAuthoredBy(db: Db, userId: number): number[] {
  return prepare(db, 'SELECT id FROM epics WHERE author_id = ?').pluck().all(userId) as number[];
}

/** Hands a user's epics to another author (the ghost user). */
export function moveEpicsToAuthor(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE epics SET author_id = ? WHERE author_id = ?').run(toUserId, fromUserId);
}
