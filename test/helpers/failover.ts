import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { gitClient, remoteUrl } from './git.js';
import { dumpTables, lastEventIdOf, ROOT_TOKEN, waitFor, type SiteProcess, type TableDump } from './multisite.js';

/** A site's position (its cursor when it follows, else its newest event) and replicated tables, in one read transaction. */
export function siteState(site: SiteProcess, exclude: readonly string[] = []): { position: number; following: boolean; tables: TableDump } {
  const db = site.openReadOnly();
  try {
    return db.transaction(() => {
      const cursor = db.prepare('SELECT last_event_id FROM geo_cursor WHERE id = 1').pluck().get() as number | undefined;
      return { position: cursor ?? lastEventIdOf(db), following: cursor !== undefined, tables: dumpTables(db, { exclude }) };
    })();
  } finally {
    db.close();
  }
}

/** Waits until `follower` applied `leader`'s newest event, then compares every replicated table, table by table. */
export async function expectSameTables(leader: SiteProcess, follower: SiteProcess, timeoutMs = 30_000): Promise<number> {
  return waitFor(
    () => {
      const want = siteState(leader);
      const got = siteState(follower);
      if (!got.following) throw new Error(`${follower.name} has no cursor yet`);
      if (got.position !== want.position) throw new Error(`${follower.name} at ${got.position}, ${leader.name} at ${want.position}`);
      expect(Object.keys(got.tables)).toEqual(Object.keys(want.tables));
      for (const table of Object.keys(want.tables)) expect(got.tables[table], `${follower.name}: table ${table}`).toEqual(want.tables[table]);
      return want.position;
    },
    { timeoutMs, message: `${follower.name} has ${leader.name}'s tables` },
  );
}

/** Waits until `follower` holds every project repository of `leader` with the same refs. */
export async function expectSameRepositories(leader: SiteProcess, follower: SiteProcess, projectIds: readonly number[], timeoutMs = 30_000): Promise<void> {
  await waitFor(
    async () => {
      for (const id of projectIds) {
        const want = await refsChecksum(repositoryPath(leader.dataDir, id));
        expect(want, `project ${id} on ${leader.name}`).not.toBeNull();
        expect(await refsChecksum(repositoryPath(follower.dataDir, id)), `project ${id} on ${follower.name}`).toBe(want);
      }
      return true;
    },
    { timeoutMs, message: `${follower.name} has ${leader.name}'s repositories` },
  );
}

/** Creates a project on `site` and pushes one commit to it (as root); returns the project. */
export async function projectWithCommit(site: SiteProcess, name: string, attrs: Record<string, unknown> = {}): Promise<any> {
  const created = await site.api('/projects', { method: 'POST', body: { name, default_branch: 'master', ...attrs } });
  if (created.status !== 201) throw new Error(`create ${name}: ${created.status} ${created.text}`);
  const git = gitClient(tmpdir(), 60_000);
  const work = await mkdtemp(path.join(tmpdir(), `geoforge-failover-${name}-`));
  await git(['init', '--quiet', '-b', 'master', work]);
  await writeFile(path.join(work, 'README.md'), `# ${name}\n`);
  await git(['add', '-A'], work);
  await git(['commit', '--quiet', '-m', `add ${name}`], work);
  await git(['push', '--quiet', remoteUrl(site.url, created.body, { username: 'root', token: ROOT_TOKEN }), 'HEAD:refs/heads/master'], work);
  return created.body;
}

/** Parses the JSON a CLI command printed with --json. */
export function jsonOut(result: { code: number | null; stdout: string; stderr: string }): any {
  if (result.code !== 0) throw new Error(`CLI exited ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return JSON.parse(result.stdout);
}
