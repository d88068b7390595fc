import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createdBy, createGroup, createGroupTeam, createProject, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Labels of projects and groups (issue 14, item 2): CRUD by id and by name (path and body forms),
 * colours (hex or CSS names), 409 duplicates, priorities, counts, include_ancestor_groups,
 * subscriptions with 304, promotion to the group, and their 400/401/403/404 rows.
 */
let site: TestSite;
let owner: TestUser, reporter: TestUser, guest: TestUser, outsider: TestUser;
let group: any;
let project: any;

const labelsPath = (projectId = project.id) => `/projects/${projectId}/labels`;

const newLabel = (path: string, body: Record<string, unknown>, as = owner.token) => createdBy(site, path, body, as);

beforeAll(async () => {
  site = await startSite();
  ({ owner, reporter, guest, outsider, group } = await createGroupTeam(site, async ({ group, owner }) => {
    project = await createProject(site, { namespace_id: group.id }, owner.token);
  }));
});
afterAll(() => site.stop());

describe('project labels', () => {
  it('creates a label with a hex or CSS colour name, answering the ProjectLabel entity', async () => {
    const bug = await newLabel(labelsPath(), { name: 'bug', color: '#d9534f', description: 'Something broke', priority: 2 });
    expect(bug).toEqual({
      id: expect.any(Number),
      name: 'bug',
      color: '#d9534f',
      description: 'Something broke',
      text_color: '#FFFFFF',
      open_issues_count: 0,
      closed_issues_count: 0,
      open_merge_requests_count: 0,
      subscribed: false,
      priority: 2,
      is_project_label: true,
    });
    expect(await newLabel(labelsPath(), { name: 'named', color: 'LightGoldenRodYellow' })).toMatchObject({ color: '#FAFAD2', text_color: '#333333', priority: null });
    expect(await newLabel(labelsPath(), { name: 'short', color: '#fff' }, reporter.token)).toMatchObject({ color: '#fff', text_color: '#333333' });
  });

  it('refuses bad input (400), duplicates (409), guests (403), anonymous callers (401) and outsiders (404)', async () => {
    const post = (body: Record<string, unknown>, as: string | null = owner.token) => site.api(labelsPath(), { method: 'POST', body, as });
    expect(await post({ color: 'red' })).toMatchObject({ status: 400, body: { message: 'name is missing' } });
    expect(await post({ name: 'x' })).toMatchObject({ status: 400, body: { message: 'color is missing' } });
    expect(await post({ name: 'x', color: 'reddish' })).toMatchObject({ status: 400, body: { message: { color: ['must be a valid color code'] } } });
    expect(await post({ name: 'x', color: '#12345' })).toMatchObject({ status: 400, body: { message: { color: ['must be a valid color code'] } } });
    expect(await post({ name: 'a,b', color: 'red' })).toMatchObject({ status: 400, body: { message: { title: ['is invalid'] } } });
    expect(await post({ name: 'x', color: 'red', priority: -1 })).toMatchObject({ status: 400, body: { message: 'priority does not have a valid value' } });
    expect(await post({ name: 'bug', color: 'red' })).toMatchObject({ status: 409, body: { message: 'Label already exists' } });
    expect(await post({ name: 'x', color: 'red' }, guest.token)).toMatchObject({ status: 403 });
    expect(await post({ name: 'x', color: 'red' }, null)).toMatchObject({ status: 401 });
    expect(await post({ name: 'x', color: 'red' }, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await site.api(labelsPath(), { as: null })).status).toBe(401);
  });

  it('reads one label by name or id, group labels included; 404 Label otherwise', async () => {
    const groupLabel = await newLabel(`/groups/${group.id}/labels`, { name: 'from-group', color: 'green' });
    const bug = (await site.api(`${labelsPath()}/bug`, { as: guest.token })).body;
    expect(bug).toMatchObject({ name: 'bug', priority: 2 });
    expect((await site.api(`${labelsPath()}/${bug.id}`, { as: guest.token })).body.name).toBe('bug');
    expect((await site.api(`${labelsPath()}/from-group`, { as: guest.token })).body).toMatchObject({ id: groupLabel.id, is_project_label: false });
    expect(await site.api(`${labelsPath()}/nope`, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Label Not Found' } });
    expect(await site.api(labelsPath(), { method: 'POST', body: { name: 'from-group', color: 'red' }, as: owner.token })).toMatchObject({ status: 409 });
  });

  it('lists by title with ancestor group labels unless include_ancestor_groups=false, with search and pages', async () => {
    const names = async (query = '') => (await site.api(`${labelsPath()}${query}`, { as: guest.token })).body.map((label: any) => label.name);
    expect(await names()).toEqual(['bug', 'from-group', 'named', 'short']);
    expect(await names('?include_ancestor_groups=false')).toEqual(['bug', 'named', 'short']);
    expect(await names('?search=ORT')).toEqual(['short']);
    const page = await site.api(`${labelsPath()}?per_page=2&page=2`, { as: guest.token });
    expect(page.body.map((label: any) => label.name)).toEqual(['named', 'short']);
    expect(page.headers).toMatchObject({ 'x-total': '4', 'x-total-pages': '2', 'x-page': '2' });
    expect((await site.api(`${labelsPath()}?include_ancestor_groups=maybe`, { as: guest.token })).status).toBe(400);
  });

  it('counts the open and closed issues carrying each label', async () => {
    const counted = await createProject(site, {}, owner.token);
    const post = (body: Record<string, unknown>) => site.api(`/projects/${counted.id}/issues`, { method: 'POST', body, as: owner.token });
    await post({ title: 'a', labels: 'counted' });
    await post({ title: 'b', labels: 'counted' });
    const c = (await post({ title: 'c', labels: 'counted,other' })).body;
    await site.api(`/projects/${counted.id}/issues/${c.iid}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    const label = (await site.api(`/projects/${counted.id}/labels/counted`, { as: owner.token })).body;
    expect(label).toMatchObject({ open_issues_count: 2, closed_issues_count: 1, open_merge_requests_count: 0 });
  });

  it('updates by name in the body, by label_id in the body, and by name or id in the path', async () => {
    const label = await newLabel(labelsPath(), { name: 'edit-me', color: 'red' });
    const byName = await site.api(labelsPath(), { method: 'PUT', body: { name: 'edit-me', new_name: 'edited', color: 'blue', description: 'now blue' }, as: owner.token });
    expect(byName).toMatchObject({ status: 200, body: { id: label.id, name: 'edited', color: '#0000FF', description: 'now blue' } });
    const byId = await site.api(labelsPath(), { method: 'PUT', body: { label_id: label.id, priority: 7 }, as: owner.token });
    expect(byId.body).toMatchObject({ name: 'edited', priority: 7 });
    expect((await site.api(`${labelsPath()}/edited`, { method: 'PUT', body: { priority: '' }, as: owner.token })).body.priority).toBe(null);
    expect((await site.api(`${labelsPath()}/${label.id}`, { method: 'PUT', body: { new_name: 'edited-again' }, as: owner.token })).body.name).toBe('edited-again');
  });

  it('refuses updates without one label reference or anything to change (400), a taken name (400), a group label (404), guests (403)', async () => {
    const put = (path: string, body: Record<string, unknown>, as = owner.token) => site.api(path, { method: 'PUT', body, as });
    expect(await put(labelsPath(), { new_name: 'x' })).toMatchObject({ status: 400, body: { message: 'label_id, name are missing, exactly one parameter must be provided' } });
    expect(await put(labelsPath(), { name: 'bug', label_id: 1, color: 'red' })).toMatchObject({ status: 400, body: { message: 'label_id, name are mutually exclusive' } });
    expect(await put(labelsPath(), { name: 'bug' })).toMatchObject({
      status: 400,
      body: { message: 'new_name, color, description, priority are missing, at least one parameter must be provided' },
    });
    expect(await put(`${labelsPath()}/bug`, { new_name: 'named' })).toMatchObject({ status: 400, body: { message: { title: ['has already been taken'] } } });
    expect(await put(`${labelsPath()}/bug`, { color: 'nope' })).toMatchObject({ status: 400, body: { message: { color: ['must be a valid color code'] } } });
    expect(await put(`${labelsPath()}/from-group`, { color: 'red' })).toMatchObject({ status: 404, body: { message: '404 Label Not Found' } });
    expect(await put(`${labelsPath()}/bug`, { color: 'red' }, guest.token)).toMatchObject({ status: 403 });
  });

  it('deletes by name in the query or body, and by name or id in the path, taking the label off its issues', async () => {
    const target = await createProject(site, {}, owner.token);
    const issue = (await site.api(`/projects/${target.id}/issues`, { method: 'POST', body: { title: 't', labels: 'd1,d2,d3,d4' }, as: owner.token })).body;
    const d3 = (await site.api(`/projects/${target.id}/labels/d3`, { as: owner.token })).body;
    expect((await site.api(`/projects/${target.id}/labels?name=d1`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`/projects/${target.id}/labels`, { method: 'DELETE', body: { name: 'd2' }, as: owner.token })).status).toBe(204);
    expect((await site.api(`/projects/${target.id}/labels/${d3.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`/projects/${target.id}/labels/d4`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`/projects/${target.id}/labels/d4`, { method: 'DELETE', as: owner.token })).status).toBe(404);
    expect((await site.api(`/projects/${target.id}/labels`, { method: 'DELETE', as: owner.token })).status).toBe(400);
    expect((await site.api(`/projects/${target.id}/issues/${issue.iid}`, { as: owner.token })).body.labels).toEqual([]);
    expect(site.site.db.prepare("SELECT count(*) FROM label_links WHERE target_type = 'Issue' AND target_id = ?").pluck().get(issue.id)).toBe(0);
  });

  it('subscribes and unsubscribes (201), 304 when already so, per project for group labels', async () => {
    const action = (path: string, name: string, as = guest.token) => site.api(`${path}/${name}`, { method: 'POST', body: {}, as });
    expect(await action(labelsPath(), 'bug/subscribe')).toMatchObject({ status: 201, body: { name: 'bug', subscribed: true } });
    expect((await action(labelsPath(), 'bug/subscribe')).status).toBe(304);
    expect((await site.api(`${labelsPath()}/bug`, { as: guest.token })).body.subscribed).toBe(true);
    expect((await site.api(`${labelsPath()}/bug`, { as: owner.token })).body.subscribed).toBe(false);
    expect(await action(labelsPath(), 'bug/unsubscribe')).toMatchObject({ status: 201, body: { subscribed: false } });
    expect((await action(labelsPath(), 'bug/unsubscribe')).status).toBe(304);

    expect((await action(labelsPath(), 'from-group/subscribe')).body.subscribed).toBe(true);
    expect((await site.api(`/groups/${group.id}/labels/from-group`, { as: guest.token })).body.subscribed).toBe(false);
    expect((await action(`/groups/${group.id}/labels`, 'from-group/subscribe')).status).toBe(201);
    expect((await action(labelsPath(), 'from-group/subscribe')).status).toBe(304);
    expect((await action(labelsPath(), 'from-group/unsubscribe')).status).toBe(201);
    expect((await site.api(`/groups/${group.id}/labels/from-group`, { as: guest.token })).body.subscribed).toBe(false);
    expect((await action(labelsPath(), 'nope/subscribe')).status).toBe(404);
    expect((await site.api(`${labelsPath()}/bug/subscribe`, { method: 'POST', body: {}, as: null })).status).toBe(401);
  });
});

describe('promoting a project label to its group', () => {
  it('moves every project label of that title in the group to one group label, keeping their issues', async () => {
    const team = await createGroup(site, {}, owner.token);
    const sub = await createGroup(site, { parent_id: team.id }, owner.token);
    const one = await createProject(site, { namespace_id: team.id }, owner.token);
    const two = await createProject(site, { namespace_id: sub.id }, owner.token);
    const i1 = (await site.api(`/projects/${one.id}/issues`, { method: 'POST', body: { title: 'one', labels: 'shared' }, as: owner.token })).body;
    const i2 = (await site.api(`/projects/${two.id}/issues`, { method: 'POST', body: { title: 'two', labels: 'shared' }, as: owner.token })).body;
    await site.api(`/projects/${one.id}/labels/shared`, { method: 'PUT', body: { color: '#123456', description: 'promoted', priority: 3 }, as: owner.token });
    await site.api(`/projects/${two.id}/labels/shared/subscribe`, { method: 'POST', body: {}, as: owner.token });

    const promoted = await site.api(`/projects/${one.id}/labels/shared/promote`, { method: 'POST', body: {}, as: owner.token });
    expect(promoted).toMatchObject({ status: 201, body: { name: 'shared', color: '#123456', description: 'promoted', open_issues_count: 2 } });
    expect(promoted.body).not.toHaveProperty('is_project_label');
    expect((await site.api(`/groups/${team.id}/labels`, { as: owner.token })).body.map((label: any) => label.name)).toEqual(['shared']);
    for (const [projectId, iid] of [[one.id, i1.iid], [two.id, i2.iid]]) {
      expect((await site.api(`/projects/${projectId}/issues/${iid}`, { as: owner.token })).body.labels).toEqual(['shared']);
      const labels = (await site.api(`/projects/${projectId}/labels`, { as: owner.token })).body;
      expect(labels.map((label: any) => [label.id, label.is_project_label])).toEqual([[promoted.body.id, false]]);
    }
    expect((await site.api(`/projects/${one.id}/labels/shared`, { as: owner.token })).body.priority).toBe(3);
    expect((await site.api(`/projects/${two.id}/labels/shared`, { as: owner.token })).body.subscribed).toBe(true);
    expect(site.site.db.prepare("SELECT count(*) FROM labels WHERE title = 'shared'").pluck().get()).toBe(1);
  });

  it('also answers PUT (200); refuses a personal project (400), reporters of the project who are not of the group (403), unknown labels (404)', async () => {
    const team = await createGroup(site, {}, owner.token);
    const inTeam = await createProject(site, { namespace_id: team.id }, owner.token);
    await newLabel(`/projects/${inTeam.id}/labels`, { name: 'p1', color: 'red' });
    await newLabel(`/projects/${inTeam.id}/labels`, { name: 'p2', color: 'red' });
    expect((await site.api(`/projects/${inTeam.id}/labels/p1/promote`, { method: 'PUT', body: {}, as: owner.token })).status).toBe(200);
    expect((await site.api(`/projects/${inTeam.id}/labels/promote`, { method: 'PUT', body: { name: 'nope' }, as: owner.token })).status).toBe(404);
    await addMember(site, 'projects', inTeam.id, reporter, 30);
    expect((await site.api(`/projects/${inTeam.id}/labels/p2/promote`, { method: 'POST', body: {}, as: reporter.token })).status).toBe(403);
    const personal = await createProject(site, {}, owner.token);
    await newLabel(`/projects/${personal.id}/labels`, { name: 'mine', color: 'red' });
    expect(await site.api(`/projects/${personal.id}/labels/mine/promote`, { method: 'POST', body: {}, as: owner.token })).toMatchObject({
      status: 400,
      body: { message: 'Failed to promote project label to group label' },
    });
  });
});

describe('group labels', () => {
  it('creates, lists (with ancestors), reads, updates and deletes them', async () => {
    const sub = await createGroup(site, { parent_id: group.id }, owner.token);
    const own = await newLabel(`/groups/${sub.id}/labels`, { name: 'sub-label', color: 'orange', description: 'd' }, reporter.token);
    expect(own).toEqual({
      id: expect.any(Number),
      name: 'sub-label',
      color: '#FFA500',
      description: 'd',
      text_color: '#FFFFFF',
      open_issues_count: 0,
      closed_issues_count: 0,
      open_merge_requests_count: 0,
      subscribed: false,
    });
    const names = async (query = '') => (await site.api(`/groups/${sub.id}/labels${query}`, { as: guest.token })).body.map((label: any) => label.name);
    expect(await names()).toEqual(['from-group', 'sub-label']);
    expect(await names('?include_ancestor_groups=false')).toEqual(['sub-label']);
    expect(await site.api(`/groups/${sub.id}/labels`, { method: 'POST', body: { name: 'from-group', color: 'red' }, as: owner.token })).toMatchObject({ status: 409 });
    expect((await site.api(`/groups/${sub.id}/labels/sub-label`, { as: guest.token })).body.id).toBe(own.id);
    expect((await site.api(`/groups/${sub.id}/labels`, { method: 'PUT', body: { name: 'sub-label', new_name: 'renamed' }, as: owner.token })).body.name).toBe('renamed');
    expect(await site.api(`/groups/${sub.id}/labels`, { method: 'PUT', body: { name: 'renamed', priority: 1 }, as: owner.token })).toMatchObject({
      status: 400,
      body: { message: 'new_name, color, description are missing, at least one parameter must be provided' },
    });
    expect((await site.api(`/groups/${sub.id}/labels/renamed`, { method: 'PUT', body: { color: '#000' }, as: owner.token })).body.color).toBe('#000');
    expect((await site.api(`/groups/${sub.id}/labels/from-group`, { method: 'PUT', body: { color: '#000' }, as: owner.token })).status).toBe(404);
    expect((await site.api(`/groups/${sub.id}/labels/renamed`, { method: 'DELETE', as: guest.token })).status).toBe(403);
    expect((await site.api(`/groups/${sub.id}/labels/renamed`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`/groups/${sub.id}/labels`, { method: 'DELETE', body: { name: 'renamed' }, as: owner.token })).status).toBe(404);
  });

  it('refuses anonymous callers (401), outsiders of a private group (404), guests writing (403)', async () => {
    expect((await site.api(`/groups/${group.id}/labels`, { as: null })).status).toBe(401);
    expect(await site.api(`/groups/${group.id}/labels`, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect((await site.api(`/groups/${group.id}/labels`, { method: 'POST', body: { name: 'g', color: 'red' }, as: guest.token })).status).toBe(403);
    // A missing parameter is refused before the ability, a bad colour (the model's check) after it.
    expect((await site.api(`/groups/${group.id}/labels`, { method: 'POST', body: { name: 'g' }, as: guest.token })).status).toBe(400);
    expect((await site.api(`/groups/${group.id}/labels`, { method: 'POST', body: { name: 'g', color: 'bad' }, as: guest.token })).status).toBe(403);
  });

  it('takes its subscriptions along when the group is deleted', async () => {
    const doomed = await createGroup(site, {}, owner.token);
    const label = await newLabel(`/groups/${doomed.id}/labels`, { name: 'bye', color: 'red' });
    await site.api(`/groups/${doomed.id}/labels/bye/subscribe`, { method: 'POST', body: {}, as: owner.token });
    expect([202, 204]).toContain((await site.api(`/groups/${doomed.id}`, { method: 'DELETE', as: owner.token })).status);
    expect(site.site.db.prepare("SELECT count(*) FROM subscriptions WHERE subscribable_type = 'Label' AND subscribable_id = ?").pluck().get(label.id)).toBe(0);
  });
});
