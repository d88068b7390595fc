import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readsTheSame, useTwoSites, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue links and weight events replicate (issue 25, item 3): links written through the primary,
 * or through the secondary (forwarded, landing on the primary), and weight changes read the same on
 * the secondary, from both sides of each link; an unlink through the secondary lands on the primary.
 */
describe('multi-site issue links and weight events', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (path: string) => readsTheSame(primary, secondary, path, 200);

  it('links and weight events written through either site read the same on the secondary', async () => {
    const project = await primary.api('/projects', { method: 'POST', body: { name: `links-${randomUUID().slice(0, 8)}`, visibility: 'private' } });
    expect(project.status, project.text).toBe(201);
    const id = project.body.id;
    const issues = [];
    for (const title of ['a', 'b', 'c']) {
      const issue = await primary.api(`/projects/${id}/issues`, { method: 'POST', body: { title, weight: 1 } });
      expect(issue.status, issue.text).toBe(201);
      issues.push(issue.body);
    }
    const [a, b, c] = issues;
    const viaPrimary = await primary.api(`/projects/${id}/issues/${a.iid}/links`, { method: 'POST', body: { target_project_id: id, target_issue_iid: b.iid, link_type: 'blocks' } });
    expect(viaPrimary.status, viaPrimary.text).toBe(201);
    const viaSecondary = await secondary.api(`/projects/${id}/issues/${c.iid}/links`, { method: 'POST', body: { target_project_id: id, target_issue_iid: a.iid } });
    expect(viaSecondary.status, viaSecondary.text).toBe(201);
    // The forwarded write landed on the primary.
    expect((await primary.api(`/projects/${id}/issues/${a.iid}/links`)).body.map((issue: any) => [issue.iid, issue.link_type])).toEqual([
      [b.iid, 'blocks'],
      [c.iid, 'relates_to'],
    ]);
    const weighted = await secondary.api(`/projects/${id}/issues/${a.iid}`, { method: 'PUT', body: { weight: 8 } });
    expect(weighted.status, weighted.text).toBe(200);

    expect((await sameOnBoth(`/projects/${id}/issues/${b.iid}/links`)).body.map((issue: any) => [issue.iid, issue.link_type])).toEqual([[a.iid, 'is_blocked_by']]);
    await sameOnBoth(`/projects/${id}/issues/${a.iid}/links`);
    await sameOnBoth(`/projects/${id}/issues/${c.iid}/links`);
    const one = await sameOnBoth(`/projects/${id}/issues/${b.iid}/links/${(await primary.api(`/projects/${id}/issues/${b.iid}/links`)).body[0].issue_link_id}`);
    expect(one.body).toMatchObject({ source_issue: { iid: a.iid }, target_issue: { iid: b.iid }, link_type: 'blocks' });
    expect((await sameOnBoth(`/projects/${id}/issues/${a.iid}`)).body).toMatchObject({ weight: 8, blocking_issues_count: 1 });
    const events = await sameOnBoth(`/projects/${id}/issues/${a.iid}/resource_weight_events`);
    expect(events.body.map((event: any) => event.weight)).toEqual([1, 8]);
    await sameOnBoth(`/projects/${id}/issues/${a.iid}/resource_weight_events/${events.body[1].id}`);
    await sameOnBoth(`/projects/${id}/issues/${a.iid}/notes?sort=asc`);

    // An unlink through the secondary lands on the primary and reads the same on both.
    const linkId = (await primary.api(`/projects/${id}/issues/${c.iid}/links`)).body[0].issue_link_id;
    const removed = await secondary.api(`/projects/${id}/issues/${c.iid}/links/${linkId}`, { method: 'DELETE' });
    expect(removed.status, removed.text).toBe(200);
    expect((await primary.api(`/projects/${id}/issues/${c.iid}/links`)).body).toEqual([]);
    expect((await sameOnBoth(`/projects/${id}/issues/${a.iid}/links`)).body.map((issue: any) => issue.iid)).toEqual([b.iid]);
  });
});
