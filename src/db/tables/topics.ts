import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface TopicRow {
  id: number;
  name: string;
  title: string;
  description: string | null;
  avatar_path: string | null;
  created_at: string;
  updated_at: string;
}

/** A topic with how many projects carry it (GitLab's total_projects_count). */
export interface TopicWithCount extends TopicRow {
  total_projects_count: number;
}

const WITH_COUNT = 't.*, (SELECT count(*) FROM project_topics pt WHERE pt.topic_id = t.id) AS total_projects_count';

export function findTopicById(db: Db, id: number): TopicWithCount | undefined {
  return prepare(db, `SELECT ${WITH_COUNT} FROM topics t WHERE t.id = ?`).get(id) as TopicWithCount | undefined;
}

/** Topics by name, case-insensitively (names are unique whatever their case). */
export function findTopicsByNames(db: Db, names: readonly string[]): TopicRow[] {
  return prepare(db, 'SELECT * FROM topics WHERE name IN (SELECT value FROM json_each(?))').all(JSON.stringify(names)) as TopicRow[];
}

const escapeLike = (text: string) => `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;

/** GitLab's TopicsFinder: a name or title substring, optionally only topics without projects; most used first, then by id. */
export function listTopicRows(db: Db, filters: { search?: string; withoutProjects?: boolean }, page: Page): Paged<TopicWithCount> {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filters.search) {
    where.push("(t.name LIKE @search ESCAPE '\\' OR t.title LIKE @search ESCAPE '\\')");
    params.search = escapeLike(filters.search);
  }
  if (filters.withoutProjects) where.push('NOT EXISTS (SELECT 1 FROM project_topics pt WHERE pt.topic_id = t.id)');
  const fromWhere = `FROM topics t${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return selectPage<TopicWithCount>(db, WITH_COUNT, fromWhere, 'total_projects_count DESC, t.id ASC', [params], page);
}

export function insertTopic(db: Db, row: Omit<TopicRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO topics (name, title, description, avatar_path, created_at, updated_at) VALUES (@name, @title, @description, @avatar_path, @created_at, @updated_at)').run(row)
      .lastInsertRowid,
  );
}

export function updateTopicRow(db: Db, id: number, columns: Partial<Omit<TopicRow, 'id'>>): void {
  const names = Object.keys(columns);
  if (!names.length) return;
  prepare(db, `UPDATE topics SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

export function deleteTopicRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM topics WHERE id = ?').run(id);
}

/** Whether another topic has this name, whatever its case. */
export function topicNameTaken(db: Db, name: string, exceptId: number | null): boolean {
  return prepare(db, 'SELECT 1 FROM topics WHERE name = ? AND id IS NOT ?').get(name, exceptId) !== undefined;
}

/** Each project's topic names, in the order they were given to it. */
export function topicNamesOfProjects(db: Db, projectIds: readonly number[]): Map<number, string[]> {
  const rows = prepare(
    db,
    'SELECT pt.project_id, t.name FROM project_topics pt JOIN topics t ON t.id = pt.topic_id WHERE pt.project_id IN (SELECT value FROM json_each(?)) ORDER BY pt.id',
  ).all(JSON.stringify(projectIds)) as { project_id: number; name: string }[];
  const out = new Map<number, string[]>();
  for (const row of rows) out.set(row.project_id, [...(out.get(row.project_id) ?? []), row.name]);
  return out;
}

/** Replaces a project's topics with these, keeping the links that stay (their order and ids). */
export function replaceProjectTopics(db: Db, projectId: number, topicIds: readonly number[]): void {
  prepare(db, 'DELETE FROM project_topics WHERE project_id = ? AND topic_id NOT IN (SELECT value FROM json_each(?))').run(projectId, JSON.stringify(topicIds));
  const link = prepare(db, 'INSERT OR IGNORE INTO project_topics (project_id, topic_id) VALUES (?, ?)');
  for (const topicId of topicIds) link.run(projectId, topicId);
}

/** Moves the projects of `sourceId` to `targetId` (a project that has both keeps one link). */
export function moveTopicProjects(db: Db, sourceId: number, targetId: number): void {
  prepare(db, 'UPDATE OR IGNORE project_topics SET topic_id = ? WHERE topic_id = ?').run(targetId, sourceId);
  prepare(db, 'DELETE FROM project_topics WHERE topic_id = ?').run(sourceId);
}
