import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createdBy, createGroup, createGroupTeam, createProject, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Milestones of projects and groups (issue 14, item 3): CRUD, iids per project and per group,
 * state_event, date validation, filters, .../issues and .../merge_requests, promotion, and their
 * 400/401/403/404 rows.
 */
let site: TestSite;
let owner: TestUser, reporter: TestUser, guest: TestUser, outsider: TestUser;
let group: any;
let project: any;

const path = (projectId = project.id) => `/projects/${projectId}/milestones`;

const newMilestone = (base: string, body: Record<string, unknown>, as = owner.token) => createdBy(site, base, body, as);

beforeAll(async () => {
  site = await startSite();
  ({ owner, reporter, guest, outsider, group } = await createGroupTeam(site, async ({ group, owner }) => {
    project = await createProject(site, { namespace_id: group.id }, owner.token);
  }));
});
afterAll(() => site.stop());

describe('project milestones', () => {
  it('creates milestones with iids of their own, answering the Milestone entity', async () => {
    const first = await newMilestone(path(), { title: ' v1.0 ', description: 'First', start_date: '2030-01-01', due_date: '2030-02-01' });
    expect(first).toEqual({
      id: expect.any(Number),
      iid: 1,
      project_id: project.id,
      title: 'v1.0',
      description: 'First',
      state: 'active',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      due_date: '2030-02-01',
      start_date: '2030-01-01',
      expired: false,
      web_url: `${site.url}/${project.path_with_namespace}/milestones/1`,
    });
    expect((await newMilestone(path(), { title: 'v0.9', due_date: '2001-01-01' }, reporter.token))).toMatchObject({ iid: 2, expired: true, start_date: null });
    const other = await createProject(site, {}, owner.token);
    expect((await newMilestone(path(other.id), { title: 'elsewhere' })).iid).toBe(1);
  });

  it('refuses bad input (400), guests (403), anonymous callers (401) and outsiders (404)', async () => {
    const post = (body: Record<string, unknown>, as: string | null = owner.token) => site.api(path(), { method: 'POST', body, as });
    expect(await post({ description: 'x' })).toMatchObject({ status: 400, body: { message: 'title is missing' } });
    expect(await post({ title: 'bad date', due_date: '2030-02-30' })).toMatchObject({ status: 400, body: { message: 'due_date is invalid' } });
    expect(await post({ title: 'bad date', start_date: 'tomorrow' })).toMatchObject({ status: 400, body: { message: 'start_date is invalid' } });
    expect(await post({ title: 'inverted', start_date: '2030-02-02', due_date: '2030-02-01' })).toMatchObject({
      status: 400,
      body: { message: { due_date: ['must be greater than start date'] } },
    });
    expect(await post({ title: 'v1.0' })).toMatchObject({ status: 400, body: { message: { title: ['has already been taken'] } } });
    expect(await post({ title: 'x' }, guest.token)).toMatchObject({ status: 403 });
    expect(await post({ title: 'x' }, null)).toMatchObject({ status: 401 });
    expect(await post({ title: 'x' }, outsider.token)).toMatchObject({ status: 404 });
    expect((await site.api(path(), { as: null })).status).toBe(401);
  });

  it('reads one milestone; 404 for unknown ids and another project\'s, 400 for a bad id', async () => {
    const listed = (await site.api(path(), { as: guest.token })).body;
    const one = await site.api(`${path()}/${listed[0].id}`, { as: guest.token });
    expect(one.body).toMatchObject({ id: listed[0].id });
    expect(await site.api(`${path()}/999999`, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await site.api(`${path()}/abc`, { as: guest.token })).toMatchObject({ status: 400, body: { message: 'milestone_id is invalid' } });
    const other = await createProject(site, {}, owner.token);
    const foreign = await newMilestone(path(other.id), { title: 'foreign' });
    expect((await site.api(`${path()}/${foreign.id}`, { as: owner.token })).status).toBe(404);
  });

  it('lists by due date (none last), then title, with state, iids, title, search and updated filters', async () => {
    const listed = await createProject(site, {}, owner.token);
    await newMilestone(path(listed.id), { title: 'b-late', due_date: '2031-01-01', description: 'has keyword' });
    await newMilestone(path(listed.id), { title: 'c-none' });
    await newMilestone(path(listed.id), { title: 'a-early', due_date: '2030-01-01' });
    const closed = await newMilestone(path(listed.id), { title: 'd-closed' });
    await site.api(`${path(listed.id)}/${closed.id}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    const titles = async (query = '') => {
      const response = await site.api(`${path(listed.id)}${query}`, { as: owner.token });
      expect(response.status, response.text).toBe(200);
      return response.body.map((milestone: any) => milestone.title);
    };
    expect(await titles()).toEqual(['a-early', 'b-late', 'c-none', 'd-closed']);
    expect(await titles('?state=active')).toEqual(['a-early', 'b-late', 'c-none']);
    expect(await titles('?state=closed')).toEqual(['d-closed']);
    expect(await titles('?iids[]=1&iids[]=3')).toEqual(['a-early', 'b-late']);
    expect(await titles('?iids=2')).toEqual(['c-none']);
    expect(await titles('?title=c-none')).toEqual(['c-none']);
    expect(await titles('?title=c')).toEqual([]);
    expect(await titles('?search=KEYWORD')).toEqual(['b-late']);
    expect(await titles('?updated_after=2100-01-01T00:00:00Z')).toEqual([]);
    expect((await site.api(`${path(listed.id)}?state=open`, { as: owner.token })).status).toBe(400);
    expect((await site.api(`${path(listed.id)}?per_page=1`, { as: owner.token })).headers['x-total']).toBe('4');
  });

  it('includes the milestones of the project\'s groups with include_parent_milestones', async () => {
    await newMilestone(`/groups/${group.id}/milestones`, { title: 'group-wide' });
    const titles = async (query: string) => (await site.api(`${path()}${query}`, { as: guest.token })).body.map((milestone: any) => milestone.title);
    expect(await titles('')).not.toContain('group-wide');
    const withParents = (await site.api(`${path()}?include_parent_milestones=true`, { as: guest.token })).body;
    const groupWide = withParents.find((milestone: any) => milestone.title === 'group-wide');
    expect(groupWide).toMatchObject({ group_id: group.id, web_url: `${site.url}/groups/${group.full_path}/-/milestones/1` });
    expect(groupWide).not.toHaveProperty('project_id');
  });

  it('edits, closes and activates; refuses an edit with nothing to change or a bad state_event', async () => {
    const milestone = await newMilestone(path(), { title: 'to edit', due_date: '2030-06-01' });
    const put = (body: Record<string, unknown>, as = owner.token) => site.api(`${path()}/${milestone.id}`, { method: 'PUT', body, as });
    expect((await put({ title: 'edited', description: 'd' })).body).toMatchObject({ title: 'edited', description: 'd', state: 'active' });
    expect((await put({ state_event: 'close' })).body.state).toBe('closed');
    expect((await put({ state_event: 'activate' }, reporter.token)).body.state).toBe('active');
    expect((await put({ due_date: '' })).body.due_date).toBe(null);
    expect(await put({ start_date: '2030-07-01', due_date: '2030-06-01' })).toMatchObject({ status: 400, body: { message: { due_date: ['must be greater than start date'] } } });
    expect(await put({})).toMatchObject({
      status: 400,
      body: { message: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided' },
    });
    expect(await put({ state_event: 'reopen' })).toMatchObject({ status: 400, body: { message: 'state_event does not have a valid value' } });
    expect(await put({ title: 'x' }, guest.token)).toMatchObject({ status: 403 });
  });

  it('lists its issues (only those the caller may read) and, until merge requests exist, no merge requests', async () => {
    const target = await createProject(site, { visibility: 'public' }, owner.token);
    const milestone = await newMilestone(path(target.id), { title: 'release' });
    const post = (body: Record<string, unknown>) => site.api(`/projects/${target.id}/issues`, { method: 'POST', body, as: owner.token });
    await post({ title: 'in', milestone_id: milestone.id });
    await post({ title: 'secret', milestone_id: milestone.id, confidential: true });
    await post({ title: 'out' });
    const titles = async (as: string) => (await site.api(`${path(target.id)}/${milestone.id}/issues`, { as })).body.map((issue: any) => issue.title);
    expect(await titles(owner.token)).toEqual(['in', 'secret']);
    expect(await titles(outsider.token)).toEqual(['in']);
    const mrs = await site.api(`${path(target.id)}/${milestone.id}/merge_requests`, { as: owner.token });
    expect(mrs).toMatchObject({ status: 200, body: [] });
    expect(mrs.headers['x-total']).toBe('0');
    expect((await site.api(`${path(target.id)}/999999/issues`, { as: owner.token })).status).toBe(404);
    expect((await site.api(`${path(target.id)}/999999/merge_requests`, { as: owner.token })).status).toBe(404);
  });

  it('deletes a milestone (204), taking it off its issues; guests get 403', async () => {
    const target = await createProject(site, {}, owner.token);
    const milestone = await newMilestone(path(target.id), { title: 'short-lived' });
    const issue = (await site.api(`/projects/${target.id}/issues`, { method: 'POST', body: { title: 't', milestone_id: milestone.id }, as: owner.token })).body;
    await addMember(site, 'projects', target.id, guest, 10);
    expect((await site.api(`${path(target.id)}/${milestone.id}`, { method: 'DELETE', as: guest.token })).status).toBe(403);
    expect((await site.api(`${path(target.id)}/${milestone.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`${path(target.id)}/${milestone.id}`, { method: 'DELETE', as: owner.token })).status).toBe(404);
    expect((await site.api(`/projects/${target.id}/issues/${issue.iid}`, { as: owner.token })).body.milestone).toBe(null);
  });
});

describe('promoting a project milestone', () => {
  it('makes a group milestone of it, merging the group\'s project milestones of that title and moving their issues', async () => {
    const team = await createGroup(site, {}, owner.token);
    const one = await createProject(site, { namespace_id: team.id }, owner.token);
    const two = await createProject(site, { namespace_id: team.id }, owner.token);
    const m1 = await newMilestone(path(one.id), { title: 'Q1', description: 'quarter', due_date: '2030-03-31' });
    const m2 = await newMilestone(path(two.id), { title: 'Q1' });
    const i1 = (await site.api(`/projects/${one.id}/issues`, { method: 'POST', body: { title: 'a', milestone_id: m1.id }, as: owner.token })).body;
    const i2 = (await site.api(`/projects/${two.id}/issues`, { method: 'POST', body: { title: 'b', milestone_id: m2.id }, as: owner.token })).body;
    const promoted = await site.api(`${path(one.id)}/${m1.id}/promote`, { method: 'POST', body: {}, as: owner.token });
    // GitLab's milestones.rb promote ends with status(200).
    expect(promoted).toMatchObject({ status: 200, body: { iid: 1, group_id: team.id, title: 'Q1', description: 'quarter', due_date: '2030-03-31', state: 'active' } });
    expect((await site.api(`/projects/${one.id}/issues/${i1.iid}`, { as: owner.token })).body.milestone).toMatchObject({ id: promoted.body.id, group_id: team.id });
    expect((await site.api(`/projects/${two.id}/issues/${i2.iid}`, { as: owner.token })).body.milestone.id).toBe(promoted.body.id);
    expect((await site.api(path(one.id), { as: owner.token })).body).toEqual([]);
    expect((await site.api(path(two.id), { as: owner.token })).body).toEqual([]);
    expect((await site.api(`/groups/${team.id}/milestones/${promoted.body.id}/issues`, { as: owner.token })).body.map((issue: any) => issue.title).sort()).toEqual(['a', 'b']);

    const again = await newMilestone(path(one.id), { title: 'Q1' });
    expect(await site.api(`${path(one.id)}/${again.id}/promote`, { method: 'POST', body: {}, as: owner.token })).toMatchObject({
      status: 400,
      body: { message: 'Promotion failed - title has already been taken' },
    });
  });

  it('refuses a project outside a group and reporters of the project who are not of the group (403)', async () => {
    const personal = await createProject(site, {}, owner.token);
    const mine = await newMilestone(path(personal.id), { title: 'mine' });
    expect((await site.api(`${path(personal.id)}/${mine.id}/promote`, { method: 'POST', body: {}, as: owner.token })).status).toBe(403);
    const team = await createGroup(site, {}, owner.token);
    const inTeam = await createProject(site, { namespace_id: team.id }, owner.token);
    await addMember(site, 'projects', inTeam.id, reporter, 30);
    const theirs = await newMilestone(path(inTeam.id), { title: 'theirs' }, reporter.token);
    expect((await site.api(`${path(inTeam.id)}/${theirs.id}/promote`, { method: 'POST', body: {}, as: reporter.token })).status).toBe(403);
    expect((await site.api(`${path(inTeam.id)}/999999/promote`, { method: 'POST', body: {}, as: owner.token })).status).toBe(404);
  });
});

describe('group milestones', () => {
  it('creates, lists, reads, edits and deletes them, with group iids', async () => {
    const team = await createGroup(site, {}, owner.token);
    await addMember(site, 'groups', team.id, reporter, 20, owner.token);
    await addMember(site, 'groups', team.id, guest, 10, owner.token);
    const base = `/groups/${team.id}/milestones`;
    const first = await newMilestone(base, { title: 'g1', due_date: '2030-01-01' }, reporter.token);
    expect(first).toMatchObject({ iid: 1, group_id: team.id, title: 'g1', web_url: `${site.url}/groups/${team.full_path}/-/milestones/1` });
    expect(first).not.toHaveProperty('project_id');
    expect((await newMilestone(base, { title: 'g2' })).iid).toBe(2);
    expect((await site.api(base, { as: guest.token })).body.map((milestone: any) => milestone.title)).toEqual(['g1', 'g2']);
    expect((await site.api(`${base}/${first.id}`, { as: guest.token })).body.title).toBe('g1');
    expect((await site.api(`${base}/${first.id}`, { method: 'PUT', body: { state_event: 'close' }, as: reporter.token })).body.state).toBe('closed');
    expect((await site.api(base, { method: 'POST', body: { title: 'x' }, as: guest.token })).status).toBe(403);
    expect((await site.api(base, { method: 'POST', body: { title: 'g1' }, as: owner.token })).status).toBe(400);
    expect((await site.api(`${base}/${first.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`${base}/${first.id}`, { as: owner.token })).status).toBe(404);

    const project = await createProject(site, { namespace_id: team.id }, owner.token);
    const g2 = (await site.api(base, { as: owner.token })).body[0];
    const issue = await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'uses group milestone', milestone_id: g2.id }, as: owner.token });
    expect(issue.body.milestone).toMatchObject({ id: g2.id, group_id: team.id });
    expect((await site.api(`/projects/${project.id}/issues?milestone=g2`, { as: owner.token })).body).toHaveLength(1);
    expect((await site.api(`${base}/${g2.id}/issues`, { as: owner.token })).body.map((row: any) => row.title)).toEqual(['uses group milestone']);
    expect((await site.api(`${base}/${g2.id}/merge_requests`, { as: owner.token })).body).toEqual([]);
  });

  it('refuses anonymous callers (401) and outsiders of a private group (404)', async () => {
    expect((await site.api(`/groups/${group.id}/milestones`, { as: null })).status).toBe(401);
    expect(await site.api(`/groups/${group.id}/milestones`, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
  });
});
