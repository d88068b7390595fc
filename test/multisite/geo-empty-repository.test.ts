import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { FAST_SYNC_ENV, ownStatus, registryOf } from '../helpers/geo-blobs.js';
import { useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 17, item 8: an empty repository whose default branch is not `master` (a project created
 * with `default_branch=main`, never pushed to) used to stay in checksum_mismatch forever: the
 * secondary's empty copy kept the HEAD its own clone chose, and no ref told it the primary's.
 */
describe('geo: an empty repository with a default branch other than master', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({ secondaryEnv: FAST_SYNC_ENV }, (sites) => ({ primary, secondary } = sites));

  const rowOf = (projectId: number) => registryOf(secondary).find((row) => row.item_type === 'repository' && row.item_id === projectId);

  it('syncs with the primary\'s HEAD, counts as synced, and follows a new default branch', async () => {
    const project = (await primary.api('/projects', { method: 'POST', body: { name: 'empty-main', default_branch: 'main' } })).body;
    expect(project.default_branch).toBe('main');
    const primaryCopy = (row: { path: string }) => path.join(primary.dataDir, row.path);

    const synced = await waitFor(
      () => {
        const row = rowOf(project.id);
        expect(row).toMatchObject({ state: 'synced', retry_count: 0, failure_type: null });
        return row;
      },
      { timeoutMs: 15_000, message: 'the empty repository synced' },
    );
    const copy = path.join(secondary.dataDir, synced.path);
    expect(await readFile(path.join(copy, 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(await refsChecksum(copy)).toBe(await refsChecksum(primaryCopy(synced)));
    expect(synced.checksum).toBe(await refsChecksum(primaryCopy(synced)));
    const status = await ownStatus(secondary);
    expect([status.repositories_failed_count, status.repositories_synced_in_percentage]).toEqual([0, '100.00%']);

    // A new default branch on a repository still empty: only HEAD changes, and the copy follows.
    expect((await primary.api(`/projects/${project.id}`, { method: 'PUT', body: { default_branch: 'trunk' } })).status).toBe(200);
    expect(await readFile(path.join(primaryCopy(synced), 'HEAD'), 'utf8')).toBe('ref: refs/heads/trunk\n');
    await waitFor(async () => (await readFile(path.join(copy, 'HEAD'), 'utf8')) === 'ref: refs/heads/trunk\n', { timeoutMs: 15_000, message: 'HEAD follows to trunk' });
    await waitFor(
      () => {
        const row = rowOf(project.id);
        return row?.state === 'synced' && row.checksum !== synced.checksum;
      },
      { timeoutMs: 15_000, message: 'synced with the new checksum' },
    );
    expect(rowOf(project.id)).toMatchObject({ state: 'synced', checksum: await refsChecksum(primaryCopy(synced)) });
    expect(await refsChecksum(copy)).toBe(await refsChecksum(primaryCopy(synced)));
  });
});
