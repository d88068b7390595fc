import type { Migration } from '../migrate.js';

/** A search index: an external-content FTS5 table over `table`'s text columns, kept by triggers (see below). */
function searchIndex(table: string, columns: readonly string[]): string {
  const index = `search_${table}`;
  const cols = columns.join(', ');
  const newValues = columns.map((column) => `new.${column}`).join(', ');
  const oldValues = columns.map((column) => `old.${column}`).join(', ');
  return `
CREATE VIRTUAL TABLE ${index} USING fts5(${cols}, content='${table}', content_rowid='id', tokenize='trigram');
INSERT INTO ${index} (${index}) VALUES ('rebuild');
CREATE TRIGGER ${index}_insert AFTER INSERT ON ${table} BEGIN
  INSERT INTO ${index} (rowid, ${cols}) VALUES (new.id, ${newValues});
END;
CREATE TRIGGER ${index}_delete AFTER DELETE ON ${table} BEGIN
  INSERT INTO ${index} (${index}, rowid, ${cols}) VALUES ('delete', old.id, ${oldValues});
END;
CREATE TRIGGER ${index}_update AFTER UPDATE OF ${cols} ON ${table} BEGIN
  INSERT INTO ${index} (${index}, rowid, ${cols}) VALUES ('delete', old.id, ${oldValues});
  INSERT INTO ${index} (rowid, ${cols}) VALUES (new.id, ${newValues});
END;`;
}

/**
 * Project topics (GitLab 14+: `topics`, with `tag_list` its legacy name) and the text search
 * indexes of GET /search.
 *
 * Topics become rows of their own, with the projects' former `tag_list` values as their first
 * topics (in each project's order, one topic per name whatever its case, as GitLab migrated tags).
 * The capture triggers of `projects` name every column, so they are dropped before the column is:
 * every boot recreates them from the schema (db/capture.ts).
 *
 * The search indexes are FTS5 tables with the trigram tokenizer, so that a word of three
 * characters or more matches anywhere in a title or text, case-insensitively, as GitLab's
 * ILIKE '%word%' does. They are derived data, never replicated (db/local-tables.ts): the triggers
 * here fire for every write to the indexed rows, the API's on a primary and the replication
 * applier's on a secondary, in the writing transaction; a snapshot carries them consistent with
 * the rows it holds. Created here from the rows that exist ('rebuild').
 */
export const topicsSearch: Migration = {
  version: 27,
  name: 'topics_search',
  sql: `
CREATE TABLE topics (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL COLLATE NOCASE UNIQUE,
  title TEXT NOT NULL,
  description TEXT,
  avatar_path TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE project_topics (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  topic_id INTEGER NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  UNIQUE (project_id, topic_id)
);
CREATE INDEX project_topics_topic ON project_topics (topic_id, project_id);

INSERT OR IGNORE INTO topics (name, title, created_at, updated_at)
  SELECT trim(tag.value), trim(tag.value), p.created_at, p.created_at
  FROM projects p, json_each(p.tag_list) tag
  WHERE trim(tag.value) <> ''
  ORDER BY p.id, tag.key;
INSERT OR IGNORE INTO project_topics (project_id, topic_id)
  SELECT p.id, t.id
  FROM projects p, json_each(p.tag_list) tag JOIN topics t ON t.name = trim(tag.value)
  ORDER BY p.id, tag.key;
DROP TRIGGER IF EXISTS geo_capture_projects_insert;
DROP TRIGGER IF EXISTS geo_capture_projects_update;
DROP TRIGGER IF EXISTS geo_capture_projects_delete;
ALTER TABLE projects DROP COLUMN tag_list;
${searchIndex('issues', ['title', 'description'])}
${searchIndex('merge_requests', ['title', 'description'])}
${searchIndex('milestones', ['title', 'description'])}
${searchIndex('notes', ['body'])}
`,
};
