import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { FAST_SYNC_ENV, ownStatus, registryOf } from '../helpers/geo-blobs.js';
import { gitClient } from '../helpers/git.js';
import { ROOT_TOKEN, createdOn, readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 26, item 2: snippet repositories are a Geo replicable type like project repositories and
 * wikis. A snippet written on the primary appends its blob event; the secondary syncs its
 * repository, counts it in its status and metrics, verifies it, fetches a corrupted copy again,
 * serves the snippet reads the same as the primary, and forwards writes (API and git) to it.
 */
describe('geo: snippet repositories', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let scratch: string;
  const git = gitClient(tmpdir(), 60_000);

  useTwoSites({ secondaryEnv: { ...FAST_SYNC_ENV, GEOFORGE_GEO_REVERIFY_SECONDS: '1' } }, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-snippet-geo-'));
  });
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const snippetRow = (id: number) => registryOf(secondary).find((row) => row.item_type === 'snippet_repository' && row.item_id === id);

  it('syncs, counts, verifies, repairs and serves snippet repositories; writes through the secondary land on the primary', async () => {
    const personal = await createdOn(primary, '/snippets', { title: 'geo personal', visibility: 'public', files: [{ file_path: 'a.txt', content: 'alpha\n' }, { file_path: 'b.txt', content: 'beta\n' }] });
    const project = await createdOn(primary, '/projects', { name: 'snippet-geo', visibility: 'private' });
    const projectSnippet = await createdOn(primary, `/projects/${project.id}/snippets`, { title: 'geo project', visibility: 'private', file_name: 'p.md', content: '# p\n' });

    // Read-your-writes: every new read answers the same on the secondary at once (the primary answers until its copy is current).
    for (const read of [
      `/snippets/${personal.id}`,
      `/snippets/${personal.id}/raw`,
      `/snippets/${personal.id}/files/main/b.txt/raw`,
      '/snippets/all',
      '/snippets/public',
      '/snippets',
      `/projects/${project.id}/snippets`,
      `/projects/${project.id}/snippets/${projectSnippet.id}`,
      `/projects/${project.id}/snippets/${projectSnippet.id}/raw`,
      `/projects/${project.id}/snippets/${projectSnippet.id}/files/main/p.md/raw`,
      `/snippets/${personal.id}/user_agent_detail`,
    ]) {
      await readsTheSame(primary, secondary, read);
    }

    const status = await waitFor(
      async () => {
        const current = await ownStatus(secondary);
        expect([current.snippet_repositories_count, current.snippet_repositories_synced_count, current.snippet_repositories_failed_count, current.snippet_repositories_synced_in_percentage]).toEqual([2, 2, 0, '100.00%']);
        return current;
      },
      { timeoutMs: 30_000, message: 'both snippet repositories synced on the secondary' },
    );
    expect(status.healthy).toBe(true);
    const metrics = (await secondary.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(new RegExp(`^geo_snippet_repositories_synced\\{[^}]*name="${secondary.name}"[^}]*\\} 2$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^geo_snippet_repositories\\{[^}]*name="${secondary.name}"[^}]*\\} 2$`, 'm'));

    // The same refs on both sites; the copy then answers reads itself.
    const row = snippetRow(personal.id)!;
    expect(row).toMatchObject({ state: 'synced', project_id: null, to_delete: 0 });
    expect(snippetRow(projectSnippet.id)).toMatchObject({ state: 'synced', project_id: project.id });
    const local = path.join(secondary.dataDir, row.path);
    expect(await refsChecksum(local)).toBe(await refsChecksum(path.join(primary.dataDir, row.path)));
    const raw = await waitFor(
      async () => {
        const response = await secondary.api(`/snippets/${personal.id}/raw`);
        return response.headers['x-geoforge-node'] === secondary.name && response;
      },
      { timeoutMs: 20_000, message: 'the raw snippet served by the secondary itself' },
    );
    expect(raw.text).toBe('alpha\n');
    await waitFor(async () => snippetRow(personal.id)!.verified_at !== null, { timeoutMs: 20_000, message: 'the copy verified' });

    // A corrupted copy (a ref gone behind the registry's back) is found by re-verification and fetched again.
    await runGit(['--git-dir', local, 'update-ref', '-d', 'refs/heads/main']);
    await waitFor(
      async () => {
        const now = snippetRow(personal.id)!;
        expect(now).toMatchObject({ state: 'synced', checksum: row.checksum });
        expect(now.last_successful_sync_at).toBeGreaterThan(row.last_successful_sync_at);
        return true;
      },
      { timeoutMs: 20_000, message: 'the corrupted copy verified and synced again' },
    );
    expect(await refsChecksum(local)).toBe(row.checksum);

    // A write through the secondary lands on the primary, and replicates back.
    const edited = await secondary.api(`/snippets/${personal.id}`, { method: 'PUT', body: { files: [{ action: 'update', file_path: 'a.txt', content: 'alpha two\n' }] } });
    expect(edited.status, edited.text).toBe(200);
    expect((await primary.api(`/snippets/${personal.id}/raw`)).text).toBe('alpha two\n');
    await readsTheSame(primary, secondary, `/snippets/${personal.id}/raw`);
    const viaSecondary = await secondary.api('/snippets', { method: 'POST', body: { title: 'from afar', file_name: 'far.txt', content: 'far\n' } });
    expect(viaSecondary.status).toBe(201);
    expect((await primary.api(`/snippets/${viaSecondary.body.id}/raw`)).text).toBe('far\n');

    // git over the secondary: a clone (served by a current copy or the primary) and a push (forwarded to the primary).
    const url = `${secondary.url.replace('://', `://root:${ROOT_TOKEN}@`)}/snippets/${personal.id}.git`;
    const work = path.join(scratch, 'personal');
    await git(['clone', '--quiet', url, work]);
    expect(await readFile(path.join(work, 'a.txt'), 'utf8')).toBe('alpha two\n');
    await runGit(['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'rm', '--quiet', 'b.txt']);
    await runGit(['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'drop b']);
    await git(['push', '--quiet', url, 'HEAD:main'], work);
    expect((await primary.api(`/snippets/${personal.id}`)).body.files.map((file: { path: string }) => file.path)).toEqual(['a.txt']);
    await readsTheSame(primary, secondary, `/snippets/${personal.id}`);

    // A delete on the primary removes the copy and its registry row.
    // The row read before the delete: the secondary may drop it as soon as the event arrives.
    const projectRow = registryOf(secondary).find((candidate) => candidate.item_type === 'snippet_repository' && candidate.item_id === projectSnippet.id)!;
    expect((await primary.api(`/projects/${project.id}/snippets/${projectSnippet.id}`, { method: 'DELETE' })).status).toBe(204);
    await waitFor(async () => (await stat(path.join(secondary.dataDir, projectRow.path)).catch(() => null)) === null && snippetRow(projectSnippet.id) === undefined, {
      timeoutMs: 20_000,
      message: 'the deleted snippet repository removed on the secondary',
    });
    await readsTheSame(primary, secondary, `/projects/${project.id}/snippets/${projectSnippet.id}`, 404);
  }, 180_000);
});
