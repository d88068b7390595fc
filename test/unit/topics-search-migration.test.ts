import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { replicatedTables, syncCaptureTriggers } from '../../src/db/capture.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';

const NOW = '2026-01-01T00:00:00.000Z';

/** A database at the schema before migration 27, as a primary runs it (capture triggers on), with rows of that time. */
function databaseBefore27(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const migration of migrations.filter((m) => m.version < 27)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, NOW);
  }
  syncCaptureTriggers(db, true);
  db.prepare("INSERT INTO users (id, username, email, name, created_at, updated_at) VALUES (1, 'u', 'u@example.com', 'U', ?, ?)").run(NOW, NOW);
  db.prepare("INSERT INTO namespaces (id, name, path, kind, owner_id, full_path, created_at, updated_at) VALUES (1, 'u', 'u', 'user', 1, 'u', ?, ?)").run(NOW, NOW);
  const project = db.prepare("INSERT INTO projects (id, namespace_id, name, path, runners_token, last_activity_at, created_at, updated_at, tag_list) VALUES (?, 1, ?, ?, 't', ?, ?, ?, ?)");
  project.run(1, 'one', 'one', NOW, NOW, NOW, JSON.stringify(['Ruby', 'docs']));
  project.run(2, 'two', 'two', NOW, NOW, NOW, JSON.stringify(['ruby', ' api ', '']));
  db.prepare("INSERT INTO issues (project_id, iid, title, description, author_id, created_at, updated_at) VALUES (1, 1, 'Old pelican issue', 'from before', 1, ?, ?)").run(NOW, NOW);
  return db;
}

describe('migration 27 (topics and search indexes)', () => {
  it("turns every project's tag_list into topics (one per name whatever its case, in the project's order) and drops the column", () => {
    const db = databaseBefore27();
    // 27 first; later migrations follow it.
    expect(migrate(db)[0]).toBe(27);
    expect(db.prepare('SELECT id, name, title FROM topics ORDER BY id').all()).toEqual([
      { id: 1, name: 'Ruby', title: 'Ruby' },
      { id: 2, name: 'docs', title: 'docs' },
      { id: 3, name: 'api', title: 'api' },
    ]);
    expect(db.prepare('SELECT project_id, topic_id FROM project_topics ORDER BY id').all()).toEqual([
      { project_id: 1, topic_id: 1 },
      { project_id: 1, topic_id: 2 },
      { project_id: 2, topic_id: 1 },
      { project_id: 2, topic_id: 3 },
    ]);
    expect((db.prepare("SELECT name FROM pragma_table_info('projects')").pluck().all() as string[])).not.toContain('tag_list');
    // The capture triggers come back from the schema at boot, and the new tables are captured; the indexes are not.
    syncCaptureTriggers(db, true);
    const captured = [...replicatedTables(db).keys()];
    expect(captured).toEqual(expect.arrayContaining(['topics', 'project_topics', 'projects']));
    expect(captured.filter((name) => name.startsWith('search_'))).toEqual([]);
  });

  it('indexes the rows that exist, and keeps the index in step with later writes', () => {
    const db = databaseBefore27();
    migrate(db);
    const find = (word: string) => db.prepare('SELECT rowid FROM search_issues WHERE search_issues MATCH ?').pluck().all(`"${word}"`);
    expect(find('pelican')).toEqual([1]);
    expect(find('BEFORE')).toEqual([1]);
    db.prepare("UPDATE issues SET title = 'Renamed heron' WHERE id = 1").run();
    expect(find('pelican')).toEqual([]);
    expect(find('heron')).toEqual([1]);
    db.prepare('DELETE FROM issues WHERE id = 1').run();
    expect(find('heron')).toEqual([]);
    expect(db.prepare("INSERT INTO search_issues (search_issues) VALUES ('integrity-check')").run().changes).toBeGreaterThanOrEqual(0);
  });
});
