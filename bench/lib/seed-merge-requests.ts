import Database from 'better-sqlite3';
import { findUserNamespace } from '../../src/db/tables/namespaces.js';
import { streamGit } from '../../src/git/cli.js';
import { repositoryOf } from '../../src/git/in-repository.js';
import type { Site } from '../../src/server.js';
import { createMergeRequest } from '../../src/services/merge-requests/merge-requests.js';
import { createProject } from '../../src/services/projects/create.js';
import { createPersonalAccessToken } from '../../src/services/users/personal-access-tokens.js';
import { createUser } from '../../src/services/users/users.js';

/** Seeded creation times start here and advance 1 s per merge request, so the newest is the last seeded. */
const EPOCH_MS = Date.UTC(2022, 0, 1);
/** Fixed commit times, so a seed is the same whatever the clock. */
const EPOCH_S = 1_600_000_000;

export interface MergeRequestProject {
  readonly projectId: number;
  readonly ownerId: number;
  /** An api-scoped personal access token of the owner (a project owner, not an admin). */
  readonly ownerToken: string;
  /** The iid of the merge request whose latest version changes `files` files. */
  readonly bigIid: number;
  readonly files: number;
}

/** Writes `master` (a README) and `big` (master plus `files` new files) into the bare repository with one `git fast-import`. */
async function writeBranches(repository: string, files: number): Promise<void> {
  const parts: string[] = [];
  const data = (value: string) => parts.push(`data ${Buffer.byteLength(value)}\n${value}\n`);
  parts.push(`commit refs/heads/master\ncommitter Bench <bench@example.com> ${EPOCH_S} +0000\n`);
  data('Initial commit');
  parts.push('M 644 inline README.md\n');
  data('# Merge requests bench\n');
  parts.push(`commit refs/heads/big\ncommitter Bench <bench@example.com> ${EPOCH_S + 60} +0000\n`);
  data(`Add ${files} files`);
  parts.push('from refs/heads/master\n');
  for (let n = 0; n < files; n++) {
    parts.push(`M 644 inline src/file-${n}.txt\n`);
    data(Array.from({ length: 10 }, (_, line) => `file ${n} line ${line}`).join('\n') + '\n');
  }
  const git = streamGit(['--git-dir', repository, 'fast-import', '--quiet']);
  git.stdout.resume();
  git.stdin.end(Buffer.from(parts.join('')));
  await git.done;
}

/**
 * A user, their public project with a real repository (`master` and a `big` branch adding
 * `files` files) and one merge request from `big` made through the merge request service (its
 * diff version recorded exactly as a create records it), on a seed site.
 */
export async function seedMergeRequestProject(site: Site, files: number): Promise<MergeRequestProject> {
  const user = await createUser(site.db, { username: 'mr-owner', email: 'mr-owner@example.com', name: 'MR Owner', skip_confirmation: true });
  const { token } = createPersonalAccessToken(site.db, user.id, { name: 'bench', scopes: ['api'] });
  const actor = { user, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
  const project = await createProject(site.ctx, { actor, creatorId: user.id, namespace: findUserNamespace(site.db, user.id)! }, { name: 'Reviews', visibility: 'public' });
  await writeBranches(repositoryOf(site.ctx, project), files);
  const big = await createMergeRequest(site.ctx, actor, project, { source_branch: 'big', target_branch: 'master', title: `Add ${files} files` });
  return { projectId: project.id, ownerId: user.id, ownerToken: token, bigIid: big.iid, files };
}

/**
 * Grows the project's merge requests to `total` (the one from `big` included) in a stopped
 * site's SQLite file through its own connection: the columns createMergeRequest writes, each from
 * its own branch name into master, a tenth closed and a tenth merged, every fifth assigned to the
 * owner, then the iid counter and the project's merge_requests_count as the services would have left them. Lists read no diff versions,
 * so the grown ones have none. The geo capture trigger of the table is dropped for the load and
 * put back (lists never read the event log).
 */
export function growMergeRequests(file: string, seed: MergeRequestProject, total: number): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = WAL');
    // Bulk load of a throwaway bench database: a crash would only lose the bench.
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    const from = db.prepare('SELECT count(*) FROM merge_requests WHERE target_project_id = ?').pluck().get(seed.projectId) as number;
    if (total <= from) return;
    const insert = db.prepare(
      `INSERT INTO merge_requests (target_project_id, source_project_id, iid, source_branch, target_branch, title, description, state, author_id, assignee_id,
         merged_at, merged_by_id, closed_at, closed_by_id, created_at, updated_at)
       VALUES (@project, @project, @iid, @branch, 'master', @title, @description, @state, @owner, @assignee, @merged_at, @merged_by, @closed_at, @closed_by, @at, @at)`,
    );
    const triggers = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'geo_capture_%' AND tbl_name = 'merge_requests'").all() as { name: string; sql: string }[];
    db.transaction(() => {
      for (const trigger of triggers) db.exec(`DROP TRIGGER "${trigger.name}"`);
      for (let n = from + 1; n <= total; n++) {
        const at = new Date(EPOCH_MS + n * 1000).toISOString();
        const state = n % 10 === 0 ? 'closed' : n % 10 === 1 ? 'merged' : 'opened';
        insert.run({
          project: seed.projectId,
          iid: n,
          branch: `topic-${n}`,
          title: `Merge request ${n}`,
          description: `Seeded merge request ${n} for the merge request benchmarks.`,
          state,
          owner: seed.ownerId,
          assignee: n % 5 === 0 ? seed.ownerId : null,
          merged_at: state === 'merged' ? at : null,
          merged_by: state === 'merged' ? seed.ownerId : null,
          closed_at: state === 'closed' ? at : null,
          closed_by: state === 'closed' ? seed.ownerId : null,
          at,
        });
      }
      db.prepare(
        `INSERT INTO internal_ids (usage, scope_id, last_value) VALUES ('merge_requests', @project, @total)
         ON CONFLICT (usage, scope_id) DO UPDATE SET last_value = @total`,
      ).run({ project: seed.projectId, total });
      db.prepare('UPDATE projects SET merge_requests_count = (SELECT count(*) FROM merge_requests WHERE target_project_id = @project) WHERE id = @project').run({ project: seed.projectId });
      for (const trigger of triggers) db.exec(trigger.sql);
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
