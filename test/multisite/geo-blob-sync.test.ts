import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { FAST_SYNC_ENV, ownStatus, postFile, registryOf } from '../helpers/geo-blobs.js';
import { ROOT_TOKEN, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const KINDS = ['repositories', 'wikis', 'lfs_objects', 'job_artifacts', 'attachments'] as const;
const root = { username: 'root', token: ROOT_TOKEN };

describe('geo blob sync: repositories, wikis, LFS objects, uploads and job artifacts reach a secondary', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let scratch: string;
  const git = gitClient(tmpdir(), 60_000);

  useTwoSites({ secondaryEnv: { ...FAST_SYNC_ENV, GEOFORGE_GEO_REVERIFY_SECONDS: '1' } }, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-blob-sync-'));
  });
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  async function pushCommits(project: any, suffix: string, files: Record<string, Buffer | string>, lfs = false): Promise<void> {
    const work = path.join(scratch, `${project.path}${suffix.replace(/\W/g, '-')}`);
    await git(['init', '--quiet', '-b', 'master', work]);
    if (lfs) {
      await git(['lfs', 'install', '--local'], work);
      await git(['config', 'lfs.locksverify', 'false'], work);
      await git(['lfs', 'track', '*.bin'], work);
    }
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(work, name), content);
    await git(['add', '-A'], work);
    await git(['commit', '--quiet', '-m', `add ${Object.keys(files).join(', ')}`], work);
    await git(['push', '--quiet', remoteUrl(primary.url, project, root, suffix), 'HEAD:refs/heads/master'], work);
  }

  it('syncs every kind to 100.00%, with the same refs and the same bytes, and removes what the primary deletes', async () => {
    const create = async (name: string) => (await primary.api('/projects', { method: 'POST', body: { name, default_branch: 'master' } })).body;
    const code = await create('blob-sync-code');
    const media = await create('blob-sync-media');
    await pushCommits(code, '.git', { 'README.md': '# code\n', 'main.c': 'int main(void) { return 0; }\n' });
    await pushCommits(code, '.wiki.git', { 'home.md': '# Home\n\nWelcome.\n' });
    const big = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE((i * 2654435761) >>> 0, i);
    await pushCommits(media, '.git', { 'big.bin': big, '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n' }, true);

    const note = Buffer.from('an attachment, replicated\n');
    await postFile(primary, `/projects/${code.id}/uploads`, 'note.txt', note);
    const head = (await primary.api(`/projects/${code.id}/repository/branches/master`)).body.commit.id as string;
    const status = await primary.api(`/projects/${code.id}/statuses/${head}`, { method: 'POST', body: { state: 'success', name: 'build' } });
    expect(status.status).toBe(201);
    const job = (await primary.api(`/projects/${code.id}/jobs`)).body.find((candidate: any) => candidate.name === 'build');
    const archive = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    await postFile(primary, `/projects/${code.id}/jobs/${job.id}/artifacts`, 'artifacts.zip', archive);

    const synced = await waitFor(
      async () => {
        const current = await ownStatus(secondary);
        expect({ ...Object.fromEntries(KINDS.map((kind) => [kind, [current[`${kind}_count`], current[`${kind}_synced_in_percentage`], current[`${kind}_failed_count`]]])) }).toEqual({
          repositories: [2, '100.00%', 0],
          wikis: [1, '100.00%', 0],
          lfs_objects: [1, '100.00%', 0],
          job_artifacts: [1, '100.00%', 0],
          attachments: [1, '100.00%', 0],
        });
        return current;
      },
      { timeoutMs: 30_000, message: 'every kind synced on the secondary' },
    );
    expect(synced.healthy).toBe(true);

    // The same refs: ls-remote of the secondary's copies (file://) equals the primary's over HTTP, and the refs checksums agree.
    const rows = registryOf(secondary);
    for (const [project, type, suffix] of [[code, 'repository', '.git'], [media, 'repository', '.git'], [code, 'wiki', '.wiki.git']] as const) {
      const row = rows.find((candidate) => candidate.item_type === type && candidate.item_id === project.id)!;
      expect(row).toMatchObject({ state: 'synced', retry_count: 0, to_delete: 0 });
      const local = path.join(secondary.dataDir, row.path);
      const ours = (await git(['ls-remote', '--symref', `file://${local}`])).stdout;
      const theirs = (await git(['ls-remote', '--symref', remoteUrl(primary.url, project, root, suffix)])).stdout;
      expect(ours).toBe(theirs);
      expect(ours).toContain('refs/heads/master');
      expect(await refsChecksum(local)).toBe(await refsChecksum(path.join(primary.dataDir, row.path)));
      const fresh = path.join(scratch, `clone-${type}-${project.id}`);
      await git(['clone', '--quiet', `file://${local}`, fresh]);
    }
    expect(await readFile(path.join(scratch, `clone-wiki-${code.id}`, 'home.md'), 'utf8')).toBe('# Home\n\nWelcome.\n');

    // The same bytes: every file at the same path on both sites, with the sha256 its row records.
    const files = rows.filter((row) => !['repository', 'wiki'].includes(row.item_type));
    expect(files.map((row) => row.item_type).sort()).toEqual(['attachment', 'job_artifact', 'lfs_object']);
    for (const row of files) {
      const copy = await readFile(path.join(secondary.dataDir, row.path));
      expect(sha256(copy)).toBe(sha256(await readFile(path.join(primary.dataDir, row.path))));
      expect(row.checksum).toBe(sha256(copy));
    }
    expect(sha256(await readFile(path.join(secondary.dataDir, files.find((row) => row.item_type === 'lfs_object')!.path)))).toBe(sha256(big));

    // Re-verification finds local copies changed behind the registry's back and syncs them again.
    const attachmentRow = files.find((row) => row.item_type === 'attachment')!;
    const codeRepository = rows.find((row) => row.item_type === 'repository' && row.item_id === code.id)!;
    await writeFile(path.join(secondary.dataDir, attachmentRow.path), 'tampered\n');
    await git(['--git-dir', path.join(secondary.dataDir, codeRepository.path), 'update-ref', '-d', 'refs/heads/master']);
    await waitFor(
      async () => {
        const now = registryOf(secondary);
        for (const before of [attachmentRow, codeRepository]) {
          expect(now.find((row) => row.id === before.id)).toMatchObject({ state: 'synced', checksum: before.checksum });
          expect(now.find((row) => row.id === before.id)!.last_successful_sync_at).toBeGreaterThan(before.last_successful_sync_at);
        }
        return true;
      },
      { timeoutMs: 15_000, message: 'tampered copies verified and synced again' },
    );
    expect(await readFile(path.join(secondary.dataDir, attachmentRow.path))).toEqual(note);
    expect(await refsChecksum(path.join(secondary.dataDir, codeRepository.path))).toBe(codeRepository.checksum);
    const metrics = (await secondary.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(/^geo_sync_total\{type="attachment",outcome="synced"\} 2$/m);

    // Deletes on the primary remove the copies on the secondary, and their registry rows.
    const artifactRow = files.find((row) => row.item_type === 'job_artifact')!;
    expect((await primary.api(`/projects/${code.id}/jobs/${job.id}/artifacts`, { method: 'DELETE' })).status).toBe(204);
    await waitFor(async () => (await stat(path.join(secondary.dataDir, artifactRow.path)).catch(() => null)) === null && !registryOf(secondary).some((row) => row.id === artifactRow.id), {
      timeoutMs: 10_000,
      message: 'artifact removed on the secondary',
    });
    const codeRows = rows.filter((row) => row.project_id === code.id);
    expect(codeRows.map((row) => row.item_type).sort()).toEqual(['attachment', 'job_artifact', 'repository', 'wiki']);
    expect([202, 204]).toContain((await primary.api(`/projects/${code.id}`, { method: 'DELETE' })).status);
    await waitFor(
      async () => {
        for (const row of codeRows) expect(await stat(path.join(secondary.dataDir, row.path)).catch(() => null), row.path).toBeNull();
        expect(registryOf(secondary).filter((row) => row.project_id === code.id)).toEqual([]);
        return true;
      },
      { timeoutMs: 15_000, message: 'project copies removed on the secondary' },
    );
    const after = await ownStatus(secondary);
    expect([after.repositories_count, after.repositories_synced_in_percentage, after.attachments_count, after.wikis_count]).toEqual([1, '100.00%', 0, 0]);

    // A new default branch moves HEAD on the primary, which a fetch never brings: the checksum tells, and the copy follows.
    const mediaRow = rows.find((row) => row.item_type === 'repository' && row.item_id === media.id)!;
    expect((await primary.api(`/projects/${media.id}/repository/branches?branch=develop&ref=master`, { method: 'POST' })).status).toBe(201);
    expect((await primary.api(`/projects/${media.id}`, { method: 'PUT', body: { default_branch: 'develop' } })).status).toBe(200);
    const mediaCopy = path.join(secondary.dataDir, mediaRow.path);
    await waitFor(async () => (await readFile(path.join(mediaCopy, 'HEAD'), 'utf8')) === 'ref: refs/heads/develop\n', { timeoutMs: 10_000, message: 'HEAD follows' });
    await waitFor(async () => registryOf(secondary).find((row) => row.id === mediaRow.id)?.state === 'synced', { message: 'media synced' });
    expect(await refsChecksum(mediaCopy)).toBe(await refsChecksum(path.join(primary.dataDir, mediaRow.path)));
  });

  it('stops cleanly mid-replication: exit code 0 and no error logged on the way out', async () => {
    await secondary.kill('SIGTERM');
    const shutdown = secondary.output.slice(secondary.output.lastIndexOf('"shutting down"'));
    expect(shutdown).toContain('exited (code 0');
    expect(shutdown).not.toMatch(/"level":50/);
  });
});
