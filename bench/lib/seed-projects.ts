import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';

/** Public, as GitLab's visibility_level 20: anonymous callers and admins both see every seeded project. */
const PUBLIC = 20;
/** project_members.access_level of the namespace owner, as createProject makes it. */
const MAINTAINER = 40;
/** Seeded creation times start here and advance 1 s per project, so created_at is distinct and grows with id. */
const EPOCH_MS = Date.UTC(2020, 0, 1);

export interface ProjectSeedState {
  /** User namespaces (id and owner) the projects are spread over, round robin. */
  readonly namespaces: readonly { id: number; ownerId: number }[];
  /** Projects seeded so far; the next is number `seeded + 1`. */
  seeded: number;
}

/** The user namespaces of the given users, read back after seedUsers created them. */
export function userNamespaces(file: string, userIds: readonly number[]): ProjectSeedState['namespaces'] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const byOwner = db.prepare("SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = ?").pluck();
    return userIds.map((ownerId) => ({ id: byOwner.get(ownerId) as number, ownerId }));
  } finally {
    db.close();
  }
}

/**
 * Grows the projects table of a stopped site's SQLite file to `total` rows through its own
 * better-sqlite3 connection: one transaction, two prepared inserts per project, the same columns
 * createProject writes (the owner as maintainer member, a runners token, the three timestamps)
 * plus a description, all public. No bare repository is made on disk (lists never touch one), and
 * no geo event is logged for the seeded rows (lists never read the log).
 */
export function growProjects(file: string, state: ProjectSeedState, total: number): void {
  if (total <= state.seeded) return;
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = WAL');
    // Bulk load of a throwaway bench database: a crash would only lose the bench.
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1000000');
    // Every referenced namespace and user exists; checking each insert's foreign keys only slows the load.
    db.pragma('foreign_keys = OFF');
    const project = db.prepare(
      `INSERT INTO projects (namespace_id, name, path, description, visibility_level, creator_id, import_status, runners_token, last_activity_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ${PUBLIC}, ?, 'none', ?, ?, ?, ?)`,
    );
    const member = db.prepare(
      `INSERT INTO project_members (project_id, user_id, access_level, created_by_id, created_at, updated_at) VALUES (?, ?, ${MAINTAINER}, ?, ?, ?)`,
    );
    // The geo capture triggers would log every seeded row; geoforge recreates them at every boot
    // (syncCaptureTriggers), and they are put back below anyway, so the load skips them.
    const triggers = db
      .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'geo_capture_%' AND tbl_name IN ('projects', 'project_members')")
      .all() as { name: string; sql: string }[];
    const { namespaces } = state;
    // 15 random bytes per token, drawn in bulk.
    const tokens = randomBytes(15 * (total - state.seeded));
    db.transaction(() => {
      for (const trigger of triggers) db.exec(`DROP TRIGGER "${trigger.name}"`);
      for (let n = state.seeded + 1, t = 0; n <= total; n++, t += 15) {
        const namespace = namespaces[n % namespaces.length];
        const at = new Date(EPOCH_MS + n * 1000).toISOString();
        const token = tokens.subarray(t, t + 15).toString('base64url');
        const id = project.run(namespace.id, `Project ${n}`, `project-${n}`, `Seeded project ${n} for the list benchmark.`, namespace.ownerId, token, at, at, at)
          .lastInsertRowid;
        member.run(id, namespace.ownerId, namespace.ownerId, at, at);
      }
      for (const trigger of triggers) db.exec(trigger.sql);
    })();
    state.seeded = total;
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
