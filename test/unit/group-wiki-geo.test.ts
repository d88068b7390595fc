import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { registryBlobCounts, registryVerificationCounts } from '../../src/geo/registry/counts.js';
import { reconcileRegistryPage, scheduleMissingItems } from '../../src/geo/registry/inventory.js';
import { isItemSelected, selectedInventoryCounts } from '../../src/geo/selective-sync.js';

const NOW = '2026-01-01T00:00:00.000Z';
const sha = (char: string) => char.repeat(64);

/** A secondary's database: groups 1 > 2 (a subgroup) and 3, each with a wiki the primary checksummed (3's failed), a node selecting group 1. */
function secondaryDb() {
  const db = new Database(':memory:');
  migrate(db);
  const group = db.prepare("INSERT INTO namespaces (id, name, path, kind, parent_id, full_path, created_at, updated_at) VALUES (?, ?, ?, 'group', ?, ?, ?, ?)");
  group.run(1, 'a', 'a', null, 'a', NOW, NOW);
  group.run(2, 'b', 'b', 1, 'a/b', NOW, NOW);
  group.run(3, 'c', 'c', null, 'c', NOW, NOW);
  const wiki = db.prepare('INSERT INTO group_wiki_repositories (group_id, checksum, checksum_updated_at, created_at) VALUES (?, ?, ?, ?)');
  wiki.run(1, sha('1'), NOW, NOW);
  wiki.run(2, sha('2'), NOW, NOW);
  wiki.run(3, null, NOW, NOW);
  db.prepare("INSERT INTO geo_nodes (id, name, url, selective_sync_type, created_at, updated_at) VALUES (5, 'second', 'http://second', 'namespaces', ?, ?)").run(NOW, NOW);
  db.prepare('INSERT INTO geo_node_namespace_links (geo_node_id, namespace_id) VALUES (5, 1)').run();
  return db;
}

describe('group wiki repositories in the registry', () => {
  it('are held by a selective node with their group (subgroups of a selected group too), and counted within the selection', () => {
    const db = secondaryDb();
    expect([1, 2, 3].map((id) => isItemSelected(db, 5, 'group_wiki_repository', id, null))).toEqual([true, true, false]);
    expect(selectedInventoryCounts(db, 5).group_wiki_repositories).toBe(2);
  });

  it('are scheduled from the inventory (checksummed ones only), reconciled when their group goes or the primary moved on, and counted', () => {
    const db = secondaryDb();
    expect(scheduleMissingItems(db, 'group_wiki_repository', 0, 10, 1)).toEqual({ lastKey: null, added: 2 });
    expect(db.prepare("SELECT item_id, project_id, path, expected_checksum FROM geo_registry WHERE item_type = 'group_wiki_repository' ORDER BY item_id").all()).toEqual([
      { item_id: 1, project_id: null, path: expect.stringMatching(/^repositories\/@groups\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.wiki\.git$/), expected_checksum: sha('1') },
      { item_id: 2, project_id: null, path: expect.any(String), expected_checksum: sha('2') },
    ]);
    db.prepare("UPDATE geo_registry SET state = 'synced', checksum = expected_checksum, verified_at = 1").run();
    expect(registryBlobCounts(db).group_wiki_repositories).toEqual({ count: 2, synced: 2, failed: 0 });
    expect(registryVerificationCounts(db).group_wiki_repositories).toEqual({ checksummed: 2, checksumFailed: 1, registry: 2, verificationTotal: 2, verified: 2, verificationFailed: 0 });

    db.prepare("UPDATE group_wiki_repositories SET checksum = ? WHERE group_id = 2").run(sha('9'));
    db.prepare('DELETE FROM namespaces WHERE id = 1').run();
    expect(reconcileRegistryPage(db, 0, 10)).toEqual({ lastId: null, deleted: 2, stale: 0 });
    db.prepare('DELETE FROM geo_registry').run();
    db.prepare('INSERT INTO group_wiki_repositories (group_id, checksum, created_at) VALUES (3, ?, ?) ON CONFLICT (group_id) DO UPDATE SET checksum = excluded.checksum').run(sha('3'), NOW);
    scheduleMissingItems(db, 'group_wiki_repository', 0, 10, 1);
    db.prepare("UPDATE geo_registry SET state = 'synced', checksum = ?").run(sha('0'));
    expect(reconcileRegistryPage(db, 0, 10)).toEqual({ lastId: null, deleted: 0, stale: 1 });
  });
});
