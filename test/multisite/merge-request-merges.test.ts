import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { commitFile, refOf, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Merges replicate (issue 15, items 5 and 10): a merge request checked and merged on the primary
 * reads merged on a secondary, whose copy of the repository gets the merge commit and
 * refs/merge-requests/<iid>/merge; an accept sent to the secondary is forwarded to the primary,
 * which alone checks and merges (a secondary never writes merge_status).
 */
describe('multi-site merges', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));


  it('a merge on the primary, and one sent to the secondary, read merged on both with the merge commit and refs in the secondary copy', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await primary.api('/projects', { method: 'POST', body: { name: `merges-${suffix}`, visibility: 'private' } });
    expect(project.status, project.text).toBe(201);
    const id = project.body.id;
    const commit = async (branch: string, file: string, start?: string) => (await commitFile(primary, id, branch, file, start)).id as string;
    await commit('master', 'README.md');
    await commit('first', 'first.txt', 'master');
    await commit('second', 'second.txt', 'master');
    const open = async (branch: string) => {
      const created = await primary.api(`/projects/${id}/merge_requests`, { method: 'POST', body: { source_branch: branch, target_branch: 'master', title: `Merge ${branch}` } });
      expect(created.status, created.text).toBe(201);
      return created.body.iid as number;
    };
    const first = await open('first');
    const second = await open('second');
    const mergeStatus = (site: SiteProcess, iid: number) => site.api(`/projects/${id}/merge_requests/${iid}`).then((response) => response.body.merge_status as string);
    await waitFor(async () => (await mergeStatus(primary, first)) === 'can_be_merged', { timeoutMs: 30_000 });
    // The secondary shows what the primary computed, from its own copy of the row.
    await waitFor(async () => (await mergeStatus(secondary, first)) === 'can_be_merged', { timeoutMs: 30_000 });
    const mergeRef = await primary.api(`/projects/${id}/merge_requests/${first}/merge_ref`);
    expect(mergeRef.status, mergeRef.text).toBe(200);
    await waitFor(async () => (await refOf(secondary, id, `refs/merge-requests/${first}/merge`)) === mergeRef.body.commit_id, {
      timeoutMs: 30_000,
      message: 'the merge ref on the secondary',
    });

    const merged = await primary.api(`/projects/${id}/merge_requests/${first}/merge`, { method: 'PUT', body: {} });
    expect(merged.status, merged.text).toBe(200);
    await waitFor(async () => (await secondary.api(`/projects/${id}/merge_requests/${first}`)).body.state === 'merged', { timeoutMs: 30_000 });
    await waitFor(async () => (await refOf(secondary, id, 'refs/heads/master')) === merged.body.merge_commit_sha, {
      timeoutMs: 30_000,
      message: 'the merge commit on the secondary',
    });

    await waitFor(async () => (await mergeStatus(secondary, second)) === 'can_be_merged', { timeoutMs: 30_000 });
    const forwarded = await secondary.api(`/projects/${id}/merge_requests/${second}/merge`, { method: 'PUT', body: {} });
    expect(forwarded.status, forwarded.text).toBe(200);
    expect(forwarded.body.state).toBe('merged');
    expect(await refOf(primary, id, 'refs/heads/master')).toBe(forwarded.body.merge_commit_sha);
    await waitFor(async () => (await refOf(secondary, id, 'refs/heads/master')) === forwarded.body.merge_commit_sha, {
      timeoutMs: 30_000,
      message: 'the forwarded merge on the secondary',
    });
    const parents = (await runGit(['--git-dir', repositoryPath(secondary.dataDir, id), 'rev-list', '--parents', '-n', '1', forwarded.body.merge_commit_sha])).stdout.trim().split(' ');
    expect(parents.slice(1)).toEqual([merged.body.merge_commit_sha, await refOf(primary, id, 'refs/heads/second')]);
  });
});
