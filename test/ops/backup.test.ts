import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { postFile } from '../helpers/geo-blobs.js';
import { destroyAll, dumpTables, lastEventIdOf, ROOT_TOKEN, SiteProcess, waitFor, type TableDump } from '../helpers/multisite.js';

/**
 * `geoforge backup create` of a running primary while issues are created and branches pushed,
 * restored with `geoforge backup restore` and started as a site: its tables equal the source's as
 * of the backup's event (rows the source changed later, by its own event log, excepted), every
 * repository has the refs of its bundle and every ref the database knows, every file the same
 * sha256; `backup verify` finds a damaged file and restore refuses that backup.
 */

const CLI = path.resolve('dist/cli.js');
const root = { username: 'root', token: ROOT_TOKEN };
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const clean = { ...process.env };
    for (const key of Object.keys(clean)) if (key.startsWith('GEOFORGE_')) delete clean[key];
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function filesUnder(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const top of ['lfs-objects', 'uploads', 'artifacts']) {
    const entries = await readdir(path.join(dir, top), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      if (full.includes(`${path.sep}lfs-objects${path.sep}tmp${path.sep}`)) continue;
      out.set(path.relative(dir, full), sha256(await readFile(full)));
    }
  }
  return out;
}

function readOnly<T>(file: string, work: (db: Database.Database) => T): T {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describe('backup create, verify and restore of a primary under writes', () => {
  let primary: SiteProcess;
  let restored: SiteProcess | null = null;
  let secondary: SiteProcess | null = null;
  let scratch: string;
  const git = gitClient(tmpdir(), 60_000);

  beforeAll(async () => {
    primary = await SiteProcess.create({ name: 'primary', role: 'primary' });
    await primary.start();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-backup-'));
  });
  afterAll(async () => {
    await destroyAll([primary, ...(restored ? [restored] : []), ...(secondary ? [secondary] : [])].filter(Boolean));
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('restores the database point, the repositories and the files, and verify finds a damaged file', async () => {
    const create = async (name: string) => (await primary.api('/projects', { method: 'POST', body: { name, default_branch: 'master' } })).body;
    const code = await create('backup-code');
    const media = await create('backup-media');
    expect((await create('backup-empty')).id).toBe(media.id + 1);
    const work = path.join(scratch, 'code');
    await git(['init', '--quiet', '-b', 'master', work]);
    await writeFile(path.join(work, 'README.md'), '# code\n');
    await git(['add', '-A'], work);
    await git(['commit', '--quiet', '-m', 'first'], work);
    await git(['push', '--quiet', remoteUrl(primary.url, code, root), 'HEAD:refs/heads/master'], work);
    const wiki = path.join(scratch, 'wiki');
    await git(['init', '--quiet', '-b', 'master', wiki]);
    await writeFile(path.join(wiki, 'home.md'), '# Home\n');
    await git(['add', '-A'], wiki);
    await git(['commit', '--quiet', '-m', 'home'], wiki);
    await git(['push', '--quiet', remoteUrl(primary.url, code, root, '.wiki.git'), 'HEAD:refs/heads/master'], wiki);
    const lfsWork = path.join(scratch, 'media');
    await git(['init', '--quiet', '-b', 'master', lfsWork]);
    await git(['lfs', 'install', '--local'], lfsWork);
    await git(['config', 'lfs.locksverify', 'false'], lfsWork);
    await git(['lfs', 'track', '*.bin'], lfsWork);
    await writeFile(path.join(lfsWork, 'big.bin'), Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256)));
    await git(['add', '-A'], lfsWork);
    await git(['commit', '--quiet', '-m', 'lfs'], lfsWork);
    await git(['push', '--quiet', remoteUrl(primary.url, media, root), 'HEAD:refs/heads/master'], lfsWork);
    await postFile(primary, `/projects/${code.id}/uploads`, 'note.txt', Buffer.from('an attachment\n'));
    const head = (await primary.api(`/projects/${code.id}/repository/branches/master`)).body.commit.id as string;
    expect((await primary.api(`/projects/${code.id}/statuses/${head}`, { method: 'POST', body: { state: 'success', name: 'build' } })).status).toBe(201);
    const job = (await primary.api(`/projects/${code.id}/jobs`)).body.find((candidate: any) => candidate.name === 'build');
    await postFile(primary, `/projects/${code.id}/jobs/${job.id}/artifacts`, 'artifacts.zip', Buffer.from(Array.from({ length: 50_000 }, (_, i) => i % 251)));

    // Writes and pushes run all along the backup: an issue and a new branch per round.
    let writing = true;
    let rounds = 0;
    const writer = (async () => {
      while (writing) {
        const issue = await primary.api(`/projects/${code.id}/issues`, { method: 'POST', body: { title: `issue ${rounds}` } });
        expect(issue.status).toBe(201);
        await writeFile(path.join(work, `file-${rounds}.txt`), `round ${rounds}\n`);
        await git(['add', '-A'], work);
        await git(['commit', '--quiet', '-m', `round ${rounds}`], work);
        await git(['push', '--quiet', remoteUrl(primary.url, code, root), `HEAD:refs/heads/round-${rounds}`], work);
        rounds++;
      }
    })();
    await waitFor(() => rounds >= 2, { timeoutMs: 30_000, message: 'two rounds of writes' });
    const before = primary.lastEventId();
    const backupDir = path.join(scratch, 'backup');
    const created = await runCli(['backup', 'create', '--output', backupDir], primary.env);
    expect(created.stderr + created.stdout).toContain('manifest written');
    expect(created.code).toBe(0);
    const after = primary.lastEventId();
    const roundsAtEnd = rounds;
    await waitFor(() => rounds >= roundsAtEnd + 1, { timeoutMs: 30_000, message: 'a round after the backup' });
    writing = false;
    await writer;

    const manifest = JSON.parse(await readFile(path.join(backupDir, 'manifest.json'), 'utf8'));
    const point = manifest.database.last_event_id as number;
    expect(point).toBeGreaterThanOrEqual(before);
    expect(point).toBeLessThanOrEqual(after);
    expect(primary.lastEventId()).toBeGreaterThan(point);
    // Sorted by project, the repository before its wiki; the project without a push has an empty repository (no bundle).
    expect(manifest.repositories.map((repo: any) => [repo.project_id, repo.wiki, repo.bundle === null])).toEqual([
      [code.id, false, false],
      [code.id, true, false],
      [media.id, false, false],
      [media.id + 1, false, true],
    ]);
    for (const entry of manifest.entries) expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);

    const verified = await runCli(['backup', 'verify', backupDir], {});
    expect(verified.stdout).toMatch(/^ok: \d+ files/m);
    expect(verified.code).toBe(0);

    restored = await SiteProcess.create({ name: 'primary', role: 'primary' });
    const restoredRun = await runCli(['backup', 'restore', backupDir, '--data-dir', restored.dataDir], {});
    expect(restoredRun.code, restoredRun.stderr).toBe(0);

    // Tables: equal to the source's, but for rows the source changed after the backup point (its own event log says which).
    const changedAfter = readOnly(primary.dbFile, (db) => {
      const rows = db.prepare("SELECT table_name, row_id FROM geo_event_log WHERE kind = 'row' AND id > ?").raw().all(point) as [string, number][];
      return new Set(rows.map(([table, id]) => `${table}:${id}`));
    });
    const source: TableDump = readOnly(primary.dbFile, (db) => dumpTables(db));
    const copy: TableDump = readOnly(restored.dbFile, (db) => dumpTables(db));
    expect(Object.keys(copy).sort()).toEqual(Object.keys(source).sort());
    let compared = 0;
    for (const [table, rows] of Object.entries(source)) {
      const theirs = new Map(rows.map((row) => [row[0], row]));
      const ours = new Map(copy[table]!.map((row) => [row[0], row]));
      for (const id of new Set([...theirs.keys(), ...ours.keys()])) {
        if (changedAfter.has(`${table}:${id}`)) continue;
        expect(ours.get(id), `${table} ${id}`).toEqual(theirs.get(id));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(25);
    // Issues written during the backup are in it up to the point, and the ones after are not.
    const issuesAt = readOnly(restored.dbFile, (db) => db.prepare('SELECT count(*) FROM issues').pluck().get() as number);
    expect(issuesAt).toBeGreaterThanOrEqual(2);
    expect(issuesAt).toBeLessThan(rounds);
    expect(readOnly(restored.dbFile, lastEventIdOf)).toBe(point);

    // Repositories: the bundle's refs, HEAD, every pushed ref the database knows, and whole object graphs.
    for (const repo of manifest.repositories) {
      const dir = path.join(restored.dataDir, repo.disk_path);
      const refs = Object.fromEntries(
        (await git(['--git-dir', dir, 'for-each-ref', '--format=%(refname) %(objectname)'])).stdout
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(' ')),
      );
      expect(refs).toEqual(repo.refs);
      expect((await git(['--git-dir', dir, 'symbolic-ref', 'HEAD'])).stdout.trim()).toBe(repo.head);
      await git(['--git-dir', dir, 'fsck', '--no-progress', '--connectivity-only']);
      // Branches are never moved by the writer: the backed-up refs are the source's.
      const sourceRefs = (await git(['--git-dir', path.join(primary.dataDir, repo.disk_path), 'for-each-ref', '--format=%(refname) %(objectname)'])).stdout;
      for (const [name, sha] of Object.entries(repo.refs)) expect(sourceRefs).toContain(`${name} ${sha}`);
    }
    const pushed = readOnly(restored.dbFile, (db) => db.prepare("SELECT project_id, push_data FROM events WHERE action = 'pushed'").raw().all() as [number, string][]);
    expect(pushed.length).toBeGreaterThanOrEqual(3);
    for (const [projectId, data] of pushed) {
      const push = JSON.parse(data) as { ref: string; commit_to: string | null; ref_type: string };
      if (!push.commit_to || push.ref_type !== 'branch') continue;
      const repo = manifest.repositories.find((candidate: any) => candidate.project_id === projectId && !candidate.wiki);
      expect(repo.refs[`refs/heads/${push.ref}`], `pushed ${push.ref}`).toBe(push.commit_to);
    }

    // Files: the same paths with the same sha256.
    const sourceFiles = await filesUnder(primary.dataDir);
    expect(sourceFiles.size).toBeGreaterThanOrEqual(3);
    expect(await filesUnder(restored.dataDir)).toEqual(sourceFiles);

    // The restored site starts and serves the data: issues through the API, the repository over git.
    await restored.start();
    const issues = await restored.api(`/projects/${code.id}/issues?per_page=100`);
    expect(issues.status).toBe(200);
    expect(issues.body).toHaveLength(issuesAt);
    const clone = path.join(scratch, 'clone');
    await git(['clone', '--quiet', '--mirror', remoteUrl(restored.url, code, root), clone]);
    const cloned = (await git(['--git-dir', clone, 'for-each-ref', '--format=%(refname)'])).stdout;
    expect(cloned).toContain('refs/heads/round-0');
    // ...and takes pushes and writes again.
    await git(['push', '--quiet', remoteUrl(restored.url, code, root), 'HEAD:refs/heads/after-restore'], work);
    expect((await restored.api(`/projects/${code.id}/repository/branches/after-restore`)).status).toBe(200);
    expect((await restored.api(`/projects/${code.id}/issues`, { method: 'POST', body: { title: 'after restore' } })).status).toBe(201);

    // The restored primary takes a new secondary: it bootstraps from it and syncs the restored repository.
    secondary = await SiteProcess.create({ name: 'secondary-new', role: 'secondary', primary: restored });
    await secondary.start({ timeoutMs: 40_000 });
    const codeRepo = manifest.repositories.find((repo: any) => repo.project_id === code.id && !repo.wiki);
    await waitFor(
      async () => {
        const copied = readOnly(secondary!.dbFile, (db) => db.prepare('SELECT count(*) FROM issues').pluck().get() as number);
        expect(copied).toBe(issuesAt + 1);
        const refs = (await git(['--git-dir', path.join(secondary!.dataDir, codeRepo.disk_path), 'for-each-ref', '--format=%(refname) %(objectname)'])).stdout;
        for (const [name, sha] of Object.entries(codeRepo.refs)) expect(refs).toContain(`${name} ${sha}`);
        return true;
      },
      { timeoutMs: 40_000, message: 'the new secondary holds the restored issues and repository' },
    );

    // A damaged file: verify names it and exits 1; restore refuses the backup.
    const lfsEntry = manifest.entries.find((entry: any) => entry.path.includes('lfs-objects'));
    const damaged = path.join(backupDir, lfsEntry.path);
    const bytes = await readFile(damaged);
    bytes[100] = bytes[100]! ^ 0xff;
    await writeFile(damaged, bytes);
    const failed = await runCli(['backup', 'verify', backupDir], {});
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(`DAMAGED ${lfsEntry.path}: sha256`);
    expect(failed.stdout).toMatch(/^damaged: /m);
    const refused = await runCli(['backup', 'restore', backupDir, '--data-dir', path.join(scratch, 'refused')], {});
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('the backup is damaged');
  }, 180_000);
  it('backs up a fresh site without any file but its generated root password, and restores that', async () => {
    const fresh = await SiteProcess.create({ name: 'fresh', role: 'primary' });
    try {
      await fresh.start();
      const dir = path.join(scratch, 'fresh-backup');
      const created = await runCli(['backup', 'create', '--output', dir], fresh.env);
      expect(created.code, created.stderr).toBe(0);
      const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
      expect(manifest.repositories).toEqual([]);
      expect(manifest.files).toEqual([{ path: 'files/initial_root_password', restore_to: 'initial_root_password' }]);
      const target = path.join(scratch, 'fresh-restored');
      expect((await runCli(['backup', 'restore', dir, '--data-dir', target], {})).code).toBe(0);
      expect(await readFile(path.join(target, 'initial_root_password'), 'utf8')).toBe(await readFile(path.join(fresh.dataDir, 'initial_root_password'), 'utf8'));
      // A second backup into the same directory is refused: a backup goes to a new directory.
      const again = await runCli(['backup', 'create', '--output', dir], fresh.env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('is not empty');
    } finally {
      await fresh.destroy();
    }
  }, 60_000);
});
