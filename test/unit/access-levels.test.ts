import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AUTHORIZED_PROJECT_IDS, groupAccessLevel, hasAccessBelowGroup, projectAccessLevel } from '../../src/db/tables/access.js';
import { migrate } from '../../src/db/migrate.js';

const TODAY = '2026-06-15';
const NOW = '2026-06-15T00:00:00Z';

function seed() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  const user = (name: string) => {
    const id = Number(db.prepare('INSERT INTO users (username, email, name, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(name, `${name}@x.org`, name, NOW, NOW).lastInsertRowid);
    db.prepare("INSERT INTO namespaces (name, path, kind, owner_id, full_path, created_at, updated_at) VALUES (?, ?, 'user', ?, ?, ?, ?)").run(name, name, id, name, NOW, NOW);
    return id;
  };
  const group = (path: string, parent: number | null) =>
    Number(
      db.prepare("INSERT INTO namespaces (name, path, kind, parent_id, full_path, created_at, updated_at) VALUES (?, ?, 'group', ?, ?, ?, ?)").run(path, path, parent, path, NOW, NOW)
        .lastInsertRowid,
    );
  const project = (namespace: number, path: string) =>
    Number(
      db.prepare("INSERT INTO projects (namespace_id, name, path, runners_token, last_activity_at, created_at, updated_at) VALUES (?, ?, ?, 't', ?, ?, ?)").run(namespace, path, path, NOW, NOW, NOW)
        .lastInsertRowid,
    );
  const member = (table: 'group_members' | 'project_members', column: string, source: number, userId: number, level: number, expires: string | null = null) =>
    db.prepare(`INSERT INTO ${table} (${column}, user_id, access_level, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`).run(source, userId, level, expires, NOW, NOW);
  return { db, user, group, project, member };
}

describe('access levels', () => {
  it('inherits group membership down the tree and stops at expiry', () => {
    const { db, user, group, member } = seed();
    const alice = user('alice');
    const top = group('top', null);
    const sub = group('sub', top);
    const leaf = group('leaf', sub);
    member('group_members', 'namespace_id', top, alice, 20);
    member('group_members', 'namespace_id', sub, alice, 40);
    expect(groupAccessLevel(db, alice, top, TODAY)).toBe(20);
    expect(groupAccessLevel(db, alice, leaf, TODAY)).toBe(40);
    const bob = user('bob');
    member('group_members', 'namespace_id', top, bob, 30, '2026-06-14');
    expect(groupAccessLevel(db, bob, leaf, TODAY)).toBe(0);
    expect(hasAccessBelowGroup(db, alice, top, TODAY)).toBe(true);
    expect(hasAccessBelowGroup(db, bob, top, TODAY)).toBe(false);
  });

  it('takes the highest of membership, namespace ownership, group and capped shares', () => {
    const { db, user, group, project, member } = seed();
    const alice = user('alice');
    const bob = user('bob');
    const carol = user('carol');
    const aliceNamespace = db.prepare("SELECT id FROM namespaces WHERE path = 'alice'").pluck().get() as number;
    const own = project(aliceNamespace, 'own');
    const team = group('team', null);
    const partners = group('partners', null);
    const partnersSub = group('partners-sub', partners);
    const shared = project(team, 'shared');
    member('group_members', 'namespace_id', team, bob, 30);
    member('group_members', 'namespace_id', partners, carol, 50);
    db.prepare('INSERT INTO project_group_links (project_id, group_id, group_access, created_at, updated_at) VALUES (?, ?, 20, ?, ?)').run(shared, partnersSub, NOW, NOW);

    expect(projectAccessLevel(db, alice, { id: own, namespace_id: aliceNamespace }, TODAY)).toBe(50);
    expect(projectAccessLevel(db, bob, { id: shared, namespace_id: team }, TODAY)).toBe(30);
    // Carol owns the parent of the group the project is shared with: capped at the share's 20.
    expect(projectAccessLevel(db, carol, { id: shared, namespace_id: team }, TODAY)).toBe(20);
    member('project_members', 'project_id', shared, carol, 40);
    expect(projectAccessLevel(db, carol, { id: shared, namespace_id: team }, TODAY)).toBe(40);
    expect(projectAccessLevel(db, alice, { id: shared, namespace_id: team }, TODAY)).toBe(0);

    const ids = (userId: number) => (db.prepare(AUTHORIZED_PROJECT_IDS).pluck().all({ user: userId, today: TODAY }) as number[]).sort();
    expect(ids(alice)).toEqual([own]);
    expect(ids(bob)).toEqual([shared]);
    expect(ids(carol)).toEqual([shared]);
  });
});
