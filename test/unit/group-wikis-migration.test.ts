import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { replicatedTables, syncCaptureTriggers } from '../../src/db/capture.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';

const NOW = '2026-01-01T00:00:00.000Z';

/** A database at the schema before migration 28, with a secondary's registry rows of that time. */
function databaseBefore28(): Database.Database {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const migration of migrations.filter((m) => m.version < 28)) {
    db.exec(migration.sql);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, NOW);
  }
  const row = db.prepare("INSERT INTO geo_registry (item_type, item_id, project_id, path, state, checksum, verified_at, created_at) VALUES (?, ?, ?, ?, 'synced', 'abc', 5, 1)");
  row.run('repository', 7, 7, 'repositories/@hashed/x.git');
  row.run('snippet_repository', 3, null, 'repositories/@snippets/y.git');
  db.prepare("DELETE FROM geo_registry WHERE item_type = 'repository'").run();
  return db;
}

describe('migration 28 (group wikis)', () => {
  it('rebuilds geo_registry for the group_wiki_repository type: rows keep their ids and values, the id sequence carries over', () => {
    const db = databaseBefore28();
    expect(migrate(db)[0]).toBe(28);
    expect(db.prepare('SELECT id, item_type, item_id, project_id, state, checksum, verified_at FROM geo_registry').all()).toEqual([
      { id: 2, item_type: 'snippet_repository', item_id: 3, project_id: null, state: 'synced', checksum: 'abc', verified_at: 5 },
    ]);
    const added = db.prepare("INSERT INTO geo_registry (item_type, item_id, path, created_at) VALUES ('group_wiki_repository', 9, 'repositories/@groups/z.wiki.git', 1)").run();
    expect(added.lastInsertRowid).toBe(3);
    expect(() => db.prepare("INSERT INTO geo_registry (item_type, item_id, path, created_at) VALUES ('nonsense', 1, 'p', 1)").run()).toThrow(/CHECK/);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'geo_registry' ORDER BY name").pluck().all()).toEqual([
      'geo_registry_due',
      'geo_registry_item',
      'geo_registry_project',
      'geo_registry_type_state',
    ]);
  });

  it('adds group_wiki_repositories, replicated (captured), the registry staying local', () => {
    const db = databaseBefore28();
    migrate(db);
    syncCaptureTriggers(db, true);
    const captured = [...replicatedTables(db).keys()];
    expect(captured).toContain('group_wiki_repositories');
    expect(captured).not.toContain('geo_registry');
  });
});
