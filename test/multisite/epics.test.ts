import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sameButSiteUrl, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Epics and epic issues replicate (issue 16, item 6): an epic with labels written on the primary,
 * issues assigned and reordered through a secondary (which forwards the writes), read back in the
 * same order on the secondary.
 */
describe('multi-site epics', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  it('reorders epic issues through a secondary and reads the order back there', async () => {
    const suffix = randomUUID().slice(0, 8);
    const group = await primary.api('/groups', { method: 'POST', body: { name: `epics-${suffix}`, path: `epics-${suffix}`, visibility: 'private' } });
    expect(group.status, group.text).toBe(201);
    const project = await primary.api('/projects', { method: 'POST', body: { name: `epic-issues-${suffix}`, namespace_id: group.body.id } });
    expect(project.status, project.text).toBe(201);
    const issues: any[] = [];
    for (let index = 0; index < 4; index += 1) {
      const issue = await primary.api(`/projects/${project.body.id}/issues`, { method: 'POST', body: { title: `issue ${index}` } });
      expect(issue.status, issue.text).toBe(201);
      issues.push(issue.body);
    }
    const epic = await primary.api(`/groups/${group.body.id}/epics`, { method: 'POST', body: { title: 'Replicated', labels: ['geo'], start_date: '2031-01-01' } });
    expect(epic.status, epic.text).toBe(201);
    const base = `/groups/${group.body.id}/epics/${epic.body.iid}`;
    // The secondary learns the group and the epic before it can forward writes about them.
    await waitFor(async () => (await secondary.api(base)).status === 200, { timeoutMs: 20_000, message: 'the epic on the secondary' });

    const links: number[] = [];
    for (const issue of issues) {
      const link = await secondary.api(`${base}/issues/${issue.id}`, { method: 'POST', body: {} });
      expect(link.status, link.text).toBe(201);
      links.push(link.body.id);
    }
    const [a, b, c, d] = links;
    const moved = await secondary.api(`/groups/${group.body.id}/-/epics/${epic.body.iid}/issues/${d}`, { method: 'PUT', body: { move_before_id: a } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.map((issue: any) => issue.epic_issue_id)).toEqual([a, d, b, c]);
    const between = await secondary.api(`${base}/issues/${a}`, { method: 'PUT', body: { move_before_id: b, move_after_id: c } });
    expect(between.status, between.text).toBe(200);
    const wanted = [d, b, a, c];

    const read = await waitFor(
      async () => {
        const got = await secondary.api(`${base}/issues`);
        return got.status === 200 && JSON.stringify(got.body.map((issue: any) => issue.epic_issue_id)) === JSON.stringify(wanted) && got;
      },
      { timeoutMs: 20_000, message: 'the new order on the secondary' },
    );
    const onPrimary = await primary.api(`${base}/issues`);
    expect(sameButSiteUrl(read.text, secondary.url, onPrimary.text, primary.url)).toBe(true);
    expect(read.body.map((issue: any) => issue.relative_position)).toEqual(onPrimary.body.map((issue: any) => issue.relative_position));
    const epicThere = await secondary.api(base);
    expect(epicThere.body).toMatchObject({ title: 'Replicated', labels: ['geo'], start_date: '2031-01-01' });
  }, 60_000);
});
