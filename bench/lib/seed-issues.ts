import Database from 'better-sqlite3';
import type { Site } from '../../src/server.js';
import { createLabel } from '../../src/services/issuables/labels.js';
import { createProject } from '../../src/services/projects/create.js';
import { createPersonalAccessToken } from '../../src/services/users/personal-access-tokens.js';
import { createUser } from '../../src/services/users/users.js';
import { findUserNamespace } from '../../src/db/tables/namespaces.js';

/** Seeded creation times start here and advance 1 s per issue, so the newest issue is the last seeded. */
const EPOCH_MS = Date.UTC(2021, 0, 1);
/** Labels of the seeded project; issue n carries label n % LABELS, so each label is on a tenth of the issues. */
export const LABELS = 10;

export interface IssueProject {
  readonly projectId: number;
  readonly ownerId: number;
  /** An api-scoped personal access token of the owner (a project owner, not an admin). */
  readonly ownerToken: string;
  /** The project's labels, in order: `label-0` ... `label-9`. */
  readonly labelIds: readonly number[];
}

/**
 * A user, their public project and its labels, made through the services of a seed site (exactly
 * the rows the app writes), for the issue scenarios.
 */
export async function seedIssueProject(site: Site): Promise<IssueProject> {
  const user = await createUser(site.db, { username: 'issue-owner', email: 'issue-owner@example.com', name: 'Issue Owner', skip_confirmation: true });
  const { token } = createPersonalAccessToken(site.db, user.id, { name: 'bench', scopes: ['api'] });
  const actor = { user, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
  const project = await createProject(site.ctx, { actor, creatorId: user.id, namespace: findUserNamespace(site.db, user.id)! }, { name: 'Tracker', visibility: 'public' });
  const labelIds: number[] = [];
  for (let n = 0; n < LABELS; n++) {
    labelIds.push(createLabel(site.db, { projectId: project.id }, { projectId: project.id, groupIds: [] }, { name: `label-${n}`, color: '#428BCA' }).id);
  }
  return { projectId: project.id, ownerId: user.id, ownerToken: token, labelIds };
}

/**
 * Grows the project's issues to `total` in a stopped site's SQLite file through its own
 * connection: the columns createIssue writes, a tenth of them closed, one label each (label
 * n % 10), every fifth assigned to the owner; then the project's iid counter and
 * open_issues_count as the services would have left them. The geo capture triggers of the three
 * tables are dropped for the load and put back (lists never read the event log).
 */
export function growIssues(file: string, seed: IssueProject, from: number, total: number): void {
  if (total <= from) return;
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = WAL');
    // Bulk load of a throwaway bench database: a crash would only lose the bench.
    db.pragma('synchronous = OFF');
    db.pragma('cache_size = -1000000');
    db.pragma('foreign_keys = OFF');
    const issue = db.prepare(
      `INSERT INTO issues (project_id, iid, title, description, state, author_id, closed_at, closed_by_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const link = db.prepare("INSERT INTO label_links (label_id, target_type, target_id, created_at) VALUES (?, 'Issue', ?, ?)");
    const assignee = db.prepare('INSERT INTO issue_assignees (issue_id, user_id) VALUES (?, ?)');
    const triggers = db
      .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'geo_capture_%' AND tbl_name IN ('issues', 'label_links', 'issue_assignees')")
      .all() as { name: string; sql: string }[];
    db.transaction(() => {
      for (const trigger of triggers) db.exec(`DROP TRIGGER "${trigger.name}"`);
      for (let n = from + 1; n <= total; n++) {
        const at = new Date(EPOCH_MS + n * 1000).toISOString();
        const closed = n % 10 === 0;
        const id = issue.run(seed.projectId, n, `Issue ${n}`, `Seeded issue ${n} for the issue benchmarks.\n\n- [ ] a task`, closed ? 'closed' : 'opened', seed.ownerId, closed ? at : null, closed ? seed.ownerId : null, at, at)
          .lastInsertRowid;
        link.run(seed.labelIds[n % LABELS], id, at);
        if (n % 5 === 0) assignee.run(id, seed.ownerId);
      }
      db.prepare(
        `INSERT INTO internal_ids (usage, scope_id, last_value) VALUES ('issues', @project, @total)
         ON CONFLICT (usage, scope_id) DO UPDATE SET last_value = @total`,
      ).run({ project: seed.projectId, total });
      db.prepare("UPDATE projects SET open_issues_count = (SELECT count(*) FROM issues WHERE project_id = @project AND state = 'opened' AND confidential = 0) WHERE id = @project").run({
        project: seed.projectId,
      });
      for (const trigger of triggers) db.exec(trigger.sql);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
