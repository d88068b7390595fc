import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destroyAll, readsTheSame, SiteProcess, waitFor } from '../helpers/multisite.js';

/**
 * Topics and search on a secondary: the search indexes are derived tables kept by triggers, not
 * replicated rows, so a secondary answers a search from its own index. Rows written before the
 * secondary bootstrapped come with its snapshot; rows written after, through the event log, are
 * indexed by the same triggers as the applier writes them. Topic writes through the secondary
 * are forwarded to the primary.
 */
describe('multi-site topics and search', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let projectId: number;

  const sameOnBoth = (path: string) => readsTheSame(primary, secondary, path);

  beforeAll(async () => {
    primary = await SiteProcess.create({ name: 'primary', role: 'primary' });
    await primary.start();
    // Written before the secondary exists: it gets them (and their index) from the snapshot.
    const project = await primary.api('/projects', { method: 'POST', body: { name: 'searchable', visibility: 'public', topics: ['before-bootstrap'] } });
    expect(project.status, project.text).toBe(201);
    projectId = project.body.id;
    const early = await primary.api(`/projects/${projectId}/issues`, { method: 'POST', body: { title: 'Early kingfisher report' } });
    expect(early.status, early.text).toBe(201);
    secondary = await SiteProcess.create({ name: 'secondary', role: 'secondary', primary });
    await secondary.start();
  }, 120_000);
  afterAll(() => destroyAll([primary, secondary].filter(Boolean)));

  it('answers the same searches as the primary, for rows from the snapshot and rows replicated after it', async () => {
    await sameOnBoth('/search?scope=issues&search=kingfisher');
    const late = await primary.api(`/projects/${projectId}/issues`, { method: 'POST', body: { title: 'Late kingfisher sighting', description: 'near the osprey nest' } });
    expect(late.status, late.text).toBe(201);
    const note = await primary.api(`/projects/${projectId}/issues/${late.body.iid}/notes`, { method: 'POST', body: { body: 'An osprey too' } });
    expect(note.status, note.text).toBe(201);
    const milestone = await primary.api(`/projects/${projectId}/milestones`, { method: 'POST', body: { title: 'Kingfisher season' } });
    expect(milestone.status, milestone.text).toBe(201);

    const issues = await sameOnBoth('/search?scope=issues&search=kingfisher');
    expect(issues.body.map((issue: { title: string }) => issue.title)).toEqual(['Late kingfisher sighting', 'Early kingfisher report']);
    await sameOnBoth(`/projects/${projectId}/search?scope=notes&search=osprey`);
    await sameOnBoth('/search?scope=milestones&search=kingfisher');
    await sameOnBoth('/search?scope=projects&search=searchable');

    // An edit replaces the indexed words on the secondary too.
    expect((await primary.api(`/projects/${projectId}/issues/${late.body.iid}`, { method: 'PUT', body: { title: 'Late heron sighting' } })).status).toBe(200);
    await waitFor(async () => {
      const found = await secondary.api('/search?scope=issues&search=heron');
      return found.status === 200 && found.body.length === 1;
    }, { timeoutMs: 15_000, message: 'the secondary finds the edited title' });
    await sameOnBoth('/search?scope=issues&search=kingfisher');
  });

  it('lands topic writes made through the secondary on the primary, and reads topics the same', async () => {
    const created = await secondary.api('/topics', { method: 'POST', body: { name: 'via-secondary', title: 'Via secondary' } });
    expect(created.status, created.text).toBe(201);
    const onPrimary = await primary.api(`/topics/${created.body.id}`);
    expect(onPrimary).toMatchObject({ status: 200, body: { name: 'via-secondary', title: 'Via secondary' } });

    const tagged = await secondary.api(`/projects/${projectId}`, { method: 'PUT', body: { topics: ['before-bootstrap', 'via-secondary'] } });
    expect(tagged.status, tagged.text).toBe(200);
    expect((await primary.api(`/projects/${projectId}`)).body.topics).toEqual(['before-bootstrap', 'via-secondary']);

    await sameOnBoth('/topics');
    await sameOnBoth(`/topics/${created.body.id}`);
    await sameOnBoth(`/projects/${projectId}`);
    const filtered = await sameOnBoth('/projects?topic=via-secondary,before-bootstrap');
    expect(filtered.body.map((project: { id: number }) => project.id)).toEqual([projectId]);
    await sameOnBoth(`/projects?topic_id=${created.body.id}`);
  });
});
