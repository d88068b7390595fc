import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commitFile, readsTheSame, refOf, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Merge requests replicate (issue 15, item 10): a merge request created on the primary reads the
 * same JSON on a secondary, its versions, commits and changes come from the secondary's own
 * database, and refs/merge-requests/<iid>/head is in the secondary's copy of the repository once
 * synced. A write through the secondary (an edit, a comment) is forwarded and reads back there.
 */
describe('multi-site merge requests', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (apiPath: string) => readsTheSame(primary, secondary, apiPath);


  it('a merge request created on the primary reads the same on the secondary, with its versions, changes and head ref', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await primary.api('/projects', { method: 'POST', body: { name: `mrs-${suffix}`, visibility: 'private' } });
    expect(project.status, project.text).toBe(201);
    const id = project.body.id;
    const commit = (branch: string, file: string, start?: string) => commitFile(primary, id, branch, file, start);
    await commit('master', 'README.md');
    await commit('feature', 'one.txt', 'master');
    const created = await primary.api(`/projects/${id}/merge_requests`, { method: 'POST', body: { source_branch: 'feature', target_branch: 'master', title: 'Replicated', labels: 'geo' } });
    expect(created.status, created.text).toBe(201);
    const head = await commit('feature', 'two.txt');
    const iid = created.body.iid;

    const shown = await sameOnBoth(`/projects/${id}/merge_requests/${iid}`);
    expect(shown.body).toMatchObject({ title: 'Replicated', labels: ['geo'], sha: head.id, changes_count: '2' });
    await sameOnBoth(`/projects/${id}/merge_requests`);
    const versions = await sameOnBoth(`/projects/${id}/merge_requests/${iid}/versions`);
    expect(versions.body).toHaveLength(2);
    await sameOnBoth(`/projects/${id}/merge_requests/${iid}/versions/${versions.body[1].id}`);
    const changes = await sameOnBoth(`/projects/${id}/merge_requests/${iid}/changes`);
    expect(changes.body.changes.map((file: any) => file.new_path)).toEqual(['one.txt', 'two.txt']);
    await sameOnBoth(`/projects/${id}/merge_requests/${iid}/commits`);

    // The secondary's repository gets the merge request's head ref with the sync.
    await waitFor(async () => (await refOf(secondary, id, `refs/merge-requests/${iid}/head`)) === head.id, {
      timeoutMs: 30_000,
      message: 'refs/merge-requests/<iid>/head on the secondary',
    });
    expect(await refOf(primary, id, `refs/merge-requests/${iid}/head`)).toBe(head.id);

    // Writes through the secondary are forwarded and read back there.
    const edited = await secondary.api(`/projects/${id}/merge_requests/${iid}`, { method: 'PUT', body: { title: 'Edited on the secondary' } });
    expect(edited.status, edited.text).toBe(200);
    const note = await secondary.api(`/projects/${id}/merge_requests/${iid}/notes`, { method: 'POST', body: { body: 'Comment via the secondary' } });
    expect(note.status, note.text).toBe(201);
    const after = await sameOnBoth(`/projects/${id}/merge_requests/${iid}`);
    expect(after.body).toMatchObject({ title: 'Edited on the secondary', user_notes_count: 1 });
    await sameOnBoth(`/projects/${id}/merge_requests/${iid}/notes`);
  });
});
