import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { FAST_SYNC_ENV, ownStatus, registryOf } from '../helpers/geo-blobs.js';
import { gitClient } from '../helpers/git.js';
import { ROOT_TOKEN, createdOn, readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 26, item 3: group wiki repositories are a Geo replicable type. A page written on the
 * primary appends the wiki's blob event; the secondary syncs the repository, counts it in its
 * status and metrics, verifies it, fetches a corrupted copy again, serves the wiki reads the same
 * as the primary, and forwards writes (API and git) to it.
 */
describe('geo: group wiki repositories', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let scratch: string;
  const git = gitClient(tmpdir(), 60_000);

  useTwoSites({ secondaryEnv: { ...FAST_SYNC_ENV, GEOFORGE_GEO_REVERIFY_SECONDS: '1' } }, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-group-wiki-geo-'));
  });
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const wikiRow = (id: number) => registryOf(secondary).find((row) => row.item_type === 'group_wiki_repository' && row.item_id === id);

  it('syncs, counts, verifies, repairs and serves group wikis; writes through the secondary land on the primary', async () => {
    const group = await createdOn(primary, '/groups', { name: 'wiki-geo', path: 'wiki-geo', visibility: 'private' });
    const other = await createdOn(primary, '/groups', { name: 'wiki-geo-2', path: 'wiki-geo-2', visibility: 'public' });
    await createdOn(primary, `/groups/${group.id}/wikis`, { title: 'Home', content: '# Home\n' });
    await createdOn(primary, `/groups/${other.id}/wikis`, { title: 'docs/Start', content: 'start\n', format: 'asciidoc' });

    for (const read of [`/groups/${group.id}/wikis`, `/groups/${group.id}/wikis?with_content=true`, `/groups/${group.id}/wikis/Home`, `/groups/${other.id}/wikis/${encodeURIComponent('docs/Start')}`]) {
      await readsTheSame(primary, secondary, read);
    }

    await waitFor(
      async () => {
        const current = await ownStatus(secondary);
        expect([current.group_wiki_repositories_count, current.group_wiki_repositories_synced_count, current.group_wiki_repositories_failed_count, current.group_wiki_repositories_synced_in_percentage]).toEqual([2, 2, 0, '100.00%']);
        // GitLab 17's checksum and verification figures: a sync verifies the copy's checksum.
        expect(current).toMatchObject({
          group_wiki_repositories_checksum_total_count: 2,
          group_wiki_repositories_checksummed_count: 2,
          group_wiki_repositories_checksum_failed_count: 0,
          group_wiki_repositories_registry_count: 2,
          group_wiki_repositories_verification_total_count: 2,
          group_wiki_repositories_verified_count: 2,
          group_wiki_repositories_verification_failed_count: 0,
          group_wiki_repositories_verified_in_percentage: '100.00%',
        });
        return true;
      },
      { timeoutMs: 30_000, message: 'both group wikis synced on the secondary' },
    );
    const metrics = (await secondary.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(new RegExp(`^geo_group_wiki_repositories_synced\\{[^}]*name="${secondary.name}"[^}]*\\} 2$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^geo_group_wiki_repositories\\{[^}]*name="${secondary.name}"[^}]*\\} 2$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^geo_group_wiki_repositories_verified\\{[^}]*name="${secondary.name}"[^}]*\\} 2$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^geo_group_wiki_repositories_checksummed\\{[^}]*name="${secondary.name}"[^}]*\\} 2$`, 'm'));

    // The same refs on both sites; the copy then answers reads itself, verified.
    const row = wikiRow(group.id)!;
    expect(row).toMatchObject({ state: 'synced', project_id: null, to_delete: 0 });
    const local = path.join(secondary.dataDir, row.path);
    expect(await refsChecksum(local)).toBe(await refsChecksum(path.join(primary.dataDir, row.path)));
    const page = await waitFor(
      async () => {
        const response = await secondary.api(`/groups/${group.id}/wikis/Home`);
        return response.headers['x-geoforge-node'] === secondary.name && response;
      },
      { timeoutMs: 20_000, message: 'the page served by the secondary itself' },
    );
    expect(page.body.content).toBe('# Home\n');
    await waitFor(async () => wikiRow(group.id)!.verified_at !== null, { timeoutMs: 20_000, message: 'the copy verified' });

    // A corrupted copy (a ref gone behind the registry's back) is found by re-verification and fetched again.
    await runGit(['--git-dir', local, 'update-ref', '-d', 'refs/heads/main']);
    await waitFor(
      async () => {
        const now = wikiRow(group.id)!;
        expect(now).toMatchObject({ state: 'synced', checksum: row.checksum });
        expect(now.last_successful_sync_at).toBeGreaterThan(row.last_successful_sync_at);
        return true;
      },
      { timeoutMs: 20_000, message: 'the corrupted copy verified and synced again' },
    );
    expect(await refsChecksum(local)).toBe(row.checksum);

    // A write through the secondary lands on the primary, and replicates back.
    const edited = await secondary.api(`/groups/${group.id}/wikis/Home`, { method: 'PUT', body: { content: '# Home two\n' } });
    expect(edited.status, edited.text).toBe(200);
    expect((await primary.api(`/groups/${group.id}/wikis/Home`)).body.content).toBe('# Home two\n');
    await readsTheSame(primary, secondary, `/groups/${group.id}/wikis/Home`);

    // git over the secondary: a clone (served by a current copy or the primary) and a push (forwarded to the primary).
    const url = `${secondary.url.replace('://', `://root:${ROOT_TOKEN}@`)}/${group.full_path}.wiki.git`;
    const work = path.join(scratch, 'wiki');
    await git(['clone', '--quiet', url, work]);
    expect(await readFile(path.join(work, 'Home.md'), 'utf8')).toBe('# Home two\n');
    await writeFile(path.join(work, 'Pushed.md'), 'pushed\n');
    await runGit(['-C', work, 'add', '.']);
    await runGit(['-C', work, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'pushed']);
    await git(['push', '--quiet', url, 'HEAD:main'], work);
    expect((await primary.api(`/groups/${group.id}/wikis/Pushed`)).body.content).toBe('pushed\n');
    await readsTheSame(primary, secondary, `/groups/${group.id}/wikis/Pushed`);

    // A group deleted on the primary takes the copy and its registry row.
    // The row read before the delete: the secondary may drop it as soon as the event arrives.
    const otherRow = wikiRow(other.id)!;
    expect((await primary.api(`/groups/${other.id}`, { method: 'DELETE' })).status).toBe(202);
    await waitFor(async () => (await stat(path.join(secondary.dataDir, otherRow.path)).catch(() => null)) === null && wikiRow(other.id) === undefined, {
      timeoutMs: 20_000,
      message: 'the deleted group wiki removed on the secondary',
    });
  }, 180_000);
});
