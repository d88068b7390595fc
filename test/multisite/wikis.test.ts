import { describe, expect, it } from 'vitest';
import { FAST_SYNC_ENV, registryOf } from '../helpers/geo-blobs.js';
import { useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 17, item 3: a wiki page written through the API on the primary is a commit in the wiki
 * repository, so it reaches a secondary through the wiki's Geo sync and reads the same there, from
 * the secondary's own copy once that is current (the primary answers until then).
 */
describe('geo: wiki pages written through the API', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({ secondaryEnv: FAST_SYNC_ENV }, (sites) => ({ primary, secondary } = sites));

  const wikiRow = (projectId: number) => registryOf(secondary).find((row) => row.item_type === 'wiki' && row.item_id === projectId);

  it('reads a page written on the primary from the secondary at once (the primary answers), then from its own copy once synced', async () => {
    const project = (await primary.api('/projects', { method: 'POST', body: { name: 'wiki-geo' } })).body;
    const created = await primary.api(`/projects/${project.id}/wikis`, { method: 'POST', body: { title: 'docs/Runbook', content: 'step one\n' } });
    expect(created.status).toBe(201);
    const page = `/projects/${project.id}/wikis/${encodeURIComponent('docs/Runbook')}`;

    // Read-your-writes: whatever the sync's progress, the page reads back on the secondary.
    const early = await secondary.api(page);
    expect(early.status).toBe(200);
    expect(early.body).toEqual(created.body);

    const read = await waitFor(
      async () => {
        expect(wikiRow(project.id)).toMatchObject({ state: 'synced' });
        const response = await secondary.api(page);
        expect(response.headers['x-geoforge-node']).toBe(secondary.name);
        return response;
      },
      { timeoutMs: 20_000, message: 'the wiki page served by the secondary itself' },
    );
    expect(read.body).toEqual(created.body);
    const list = await secondary.api(`/projects/${project.id}/wikis`);
    expect(list.headers['x-geoforge-node']).toBe(secondary.name);
    expect(list.body).toEqual([{ format: 'markdown', slug: 'docs/Runbook', title: 'Runbook' }]);

    const edited = await primary.api(page, { method: 'PUT', body: { content: 'step two\n' } });
    expect(edited.status).toBe(200);
    expect((await secondary.api(page)).body.content).toBe('step two\n');
    await waitFor(
      async () => {
        const response = await secondary.api(page);
        return response.headers['x-geoforge-node'] === secondary.name && response.body.content === 'step two\n';
      },
      { timeoutMs: 20_000, message: 'the edit served by the secondary itself' },
    );

    // A write sent to the secondary is forwarded: the page is a commit on the primary.
    const forwarded = await secondary.api(`/projects/${project.id}/wikis`, { method: 'POST', body: { title: 'From afar', content: 'hi\n' } });
    expect(forwarded.status).toBe(201);
    expect((await primary.api(`/projects/${project.id}/wikis/From-afar`)).body.content).toBe('hi\n');
  });
});
