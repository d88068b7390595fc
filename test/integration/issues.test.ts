import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProjectById } from '../../src/db/tables/projects.js';
import { findUserById } from '../../src/db/tables/users.js';
import { issueListQuery, type IssueFilters } from '../../src/services/issuables/issue-lists.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Issues (issue 14, item 1): create, read, edit, delete, lists with GitLab's filters and orders,
 * confidential issues, iids, open_issues_count, time tracking, subscriptions, move, participants,
 * closed_by and user_agent_detail, with their 400/401/403/404/304 rows.
 */
let site: TestSite;
let owner: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: any;

const now = () => new Date().toISOString();

async function newIssue(projectId: number, body: Record<string, unknown>, as = owner.token) {
  const response = await site.api(`/projects/${projectId}/issues`, { method: 'POST', body, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const put = (projectId: number, iid: number, body: Record<string, unknown>, as = owner.token) =>
  site.api(`/projects/${projectId}/issues/${iid}`, { method: 'PUT', body, as });

const openCount = async (projectId: number) => (await site.api(`/projects/${projectId}`)).body.open_issues_count;

const iidsOf = (body: { iid: number }[]) => body.map((issue) => issue.iid);

beforeAll(async () => {
  site = await startSite();
  [owner, reporter, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'private' }, owner.token);
  await addMember(site, 'projects', project.id, reporter, 20);
  await addMember(site, 'projects', project.id, guest, 10);
});
afterAll(() => site.stop());

describe('creating and reading an issue', () => {
  it('answers 201 with the Issue entity: iid, labels (created when unknown), assignees, milestone, task status, links', async () => {
    const milestone = (await site.api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'v1', due_date: '2030-01-01' }, as: owner.token })).body;
    const issue = await newIssue(project.id, {
      title: '  Crash on start  ',
      description: 'Steps\n- [x] open\n- [ ] click\n* [X] wait',
      labels: 'bug,ui',
      assignee_ids: [reporter.id],
      milestone_id: milestone.id,
      due_date: '2030-02-03',
      weight: 3,
    });
    expect(issue).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'Crash on start',
      state: 'opened',
      closed_at: null,
      closed_by: null,
      labels: ['bug', 'ui'],
      milestone: { id: milestone.id, iid: 1, project_id: project.id, title: 'v1', state: 'active', due_date: '2030-01-01' },
      assignees: [{ id: reporter.id, username: reporter.username }],
      assignee: { id: reporter.id },
      author: { id: owner.id, username: owner.username },
      user_notes_count: 0,
      merge_requests_count: 0,
      upvotes: 0,
      downvotes: 0,
      due_date: '2030-02-03',
      confidential: false,
      discussion_locked: null,
      weight: 3,
      web_url: `${site.url}/${project.path_with_namespace}/issues/1`,
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      task_completion_status: { count: 3, completed_count: 2 },
      has_tasks: true,
      task_status: '2 of 3 tasks completed',
      _links: {
        self: `${site.url}/api/v4/projects/${project.id}/issues/1`,
        notes: `${site.url}/api/v4/projects/${project.id}/issues/1/notes`,
        award_emoji: `${site.url}/api/v4/projects/${project.id}/issues/1/award_emoji`,
        project: `${site.url}/api/v4/projects/${project.id}`,
      },
      references: { short: '#1', relative: '#1', full: `${project.path_with_namespace}#1` },
      subscribed: true,
      moved_to_id: null,
    });
    const labels = (await site.api(`/projects/${project.id}/labels`, { as: owner.token })).body;
    expect(labels.map((label: any) => [label.name, label.color, label.is_project_label])).toEqual([
      ['bug', '#428BCA', true],
      ['ui', '#428BCA', true],
    ]);
    const again = await site.api(`/projects/${project.id}/issues/1`, { as: guest.token });
    expect(again.status).toBe(200);
    expect(again.headers['content-type']).toBe('application/json');
    expect(again.body).toMatchObject({ id: issue.id, iid: 1, labels: ['bug', 'ui'], subscribed: false });
  });

  it('drops what a guest may not set (labels, assignees, milestone, confidentiality) and keeps title and description', async () => {
    const issue = await newIssue(project.id, { title: 'From a guest', description: 'd', labels: 'guest-label', assignee_ids: [owner.id], confidential: true }, guest.token);
    expect(issue).toMatchObject({ title: 'From a guest', description: 'd', labels: [], assignees: [], confidential: false, author: { id: guest.id } });
    const names = (await site.api(`/projects/${project.id}/labels`, { as: owner.token })).body.map((label: any) => label.name);
    expect(names).not.toContain('guest-label');
  });

  it('refuses bad input with 400 and GitLab bodies, anonymous writes with 401, outsiders with 404', async () => {
    const post = (body: unknown, as: string | null = owner.token) => site.api(`/projects/${project.id}/issues`, { method: 'POST', body, as });
    expect(await post({ description: 'no title' })).toMatchObject({ status: 400, body: { message: 'title is missing' } });
    expect(await post({ title: 'x'.repeat(256) })).toMatchObject({ status: 400, body: { message: { title: ['is too long (maximum is 255 characters)'] } } });
    expect(await post({ title: '   ' })).toMatchObject({ status: 400, body: { message: { title: ["can't be blank"] } } });
    expect(await post({ title: 't', due_date: '2030-13-01' })).toMatchObject({ status: 400, body: { message: 'due_date is invalid' } });
    expect(await post({ title: 't', confidential: 'maybe' })).toMatchObject({ status: 400, body: { message: 'confidential is invalid' } });
    expect(await post({ title: 't', assignee_ids: ['x'] })).toMatchObject({ status: 400, body: { message: 'assignee_ids is invalid' } });
    expect(await post({ title: 't' }, null)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await post({ title: 't' }, outsider.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const one = (path: string, as: string | null = owner.token) => site.api(`/projects/${project.id}/issues/${path}`, { as });
    expect(await one('999')).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await one('abc')).toMatchObject({ status: 400, body: { message: 'issue_iid is invalid' } });
    expect(await one('1', null)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('lets anonymous callers read the issues of a public project, and nobody those of a project with issues off', async () => {
    const open = await createProject(site, { visibility: 'public' }, owner.token);
    await newIssue(open.id, { title: 'public issue' });
    expect((await site.api(`/projects/${open.id}/issues/1`, { as: null })).body).toMatchObject({ title: 'public issue', subscribed: false });
    expect((await site.api(`/projects/${open.id}/issues`, { as: null })).body).toHaveLength(1);
    expect((await site.api(`/projects/${open.id}/issues`, { method: 'POST', body: { title: 't' }, as: outsider.token })).status).toBe(201);

    await site.api(`/projects/${open.id}`, { method: 'PUT', body: { issues_enabled: false }, as: owner.token });
    expect((await site.api(`/projects/${open.id}/issues`, { as: owner.token })).status).toBe(403);
    expect((await site.api(`/projects/${open.id}/issues`, { method: 'POST', body: { title: 't' }, as: owner.token })).status).toBe(403);
  });

  it('refuses new issues in an archived project (403) but still shows the old ones', async () => {
    const archived = await createProject(site, {}, owner.token);
    await newIssue(archived.id, { title: 'before' });
    expect((await site.api(`/projects/${archived.id}/archive`, { method: 'POST', body: {}, as: owner.token })).status).toBe(201);
    expect((await site.api(`/projects/${archived.id}/issues`, { method: 'POST', body: { title: 't' }, as: owner.token })).status).toBe(403);
    expect((await put(archived.id, 1, { title: 'after' })).status).toBe(403);
    expect((await site.api(`/projects/${archived.id}/issues/1`, { as: owner.token })).body.title).toBe('before');
  });

  it('lets owners backdate an issue, and ignores created_at from anyone else', async () => {
    const backdated = await newIssue(project.id, { title: 'old', created_at: '2019-05-06T07:08:09Z' });
    expect(backdated).toMatchObject({ created_at: '2019-05-06T07:08:09.000Z', updated_at: '2019-05-06T07:08:09.000Z' });
    const fresh = await newIssue(project.id, { title: 'not old', created_at: '2019-05-06T07:08:09Z' }, reporter.token);
    expect(fresh.created_at > '2020').toBe(true);
  });
});

describe('iids', () => {
  it('gives 50 concurrent creates 50 distinct consecutive iids and never reuses a deleted one', async () => {
    const target = await createProject(site, {}, owner.token);
    const created = await Promise.all(Array.from({ length: 50 }, (_, n) => newIssue(target.id, { title: `parallel ${n}` })));
    const iids = created.map((issue) => issue.iid).sort((a, b) => a - b);
    expect(iids).toEqual(Array.from({ length: 50 }, (_, n) => n + 1));
    expect(new Set(created.map((issue) => issue.id)).size).toBe(50);
    expect(await openCount(target.id)).toBe(50);

    expect((await site.api(`/projects/${target.id}/issues/50`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await newIssue(target.id, { title: 'after delete' })).iid).toBe(51);
    expect(await openCount(target.id)).toBe(50);
  });
});

describe('editing an issue', () => {
  let iid: number;
  beforeAll(async () => {
    iid = (await newIssue(project.id, { title: 'To edit', labels: ['one', 'two'] })).iid;
  });

  it('changes attributes and labels, and moves updated_at only when something changed', async () => {
    const before = (await site.api(`/projects/${project.id}/issues/${iid}`, { as: owner.token })).body;
    const same = await put(project.id, iid, { title: 'To edit' });
    expect(same.body.updated_at).toBe(before.updated_at);
    const edited = await put(project.id, iid, { title: 'Edited', description: 'now with text', labels: 'two,three', due_date: '2031-01-01', discussion_locked: true });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: 'Edited', description: 'now with text', labels: ['three', 'two'], due_date: '2031-01-01', discussion_locked: true });
    expect(edited.body.updated_at > before.updated_at).toBe(true);
    const added = await put(project.id, iid, { add_labels: 'four', remove_labels: 'two' });
    expect(added.body.labels).toEqual(['four', 'three']);
    expect((await put(project.id, iid, { labels: '' })).body.labels).toEqual([]);
    expect((await put(project.id, iid, { due_date: '' })).body.due_date).toBe(null);
  });

  it('closes with closed_at and closed_by, reopens clearing them, and keeps open_issues_count', async () => {
    const target = await createProject(site, {}, owner.token);
    const issue = await newIssue(target.id, { title: 'state' });
    expect(await openCount(target.id)).toBe(1);
    const closed = await put(target.id, issue.iid, { state_event: 'close' }, reporter.token);
    expect(closed.status).toBe(404);
    await addMember(site, 'projects', target.id, reporter, 20);
    const closedNow = await put(target.id, issue.iid, { state_event: 'close' }, reporter.token);
    expect(closedNow.body).toMatchObject({ state: 'closed', closed_by: { id: reporter.id } });
    expect(closedNow.body.closed_at).toBeTruthy();
    expect(await openCount(target.id)).toBe(0);
    const closedAgain = await put(target.id, issue.iid, { state_event: 'close' }, reporter.token);
    expect(closedAgain.body.closed_at).toBe(closedNow.body.closed_at);
    expect(await openCount(target.id)).toBe(0);
    const reopened = await put(target.id, issue.iid, { state_event: 'reopen' });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null, closed_by: null });
    expect(await openCount(target.id)).toBe(1);
    await put(target.id, issue.iid, { confidential: true });
    expect(await openCount(target.id)).toBe(0);
  });

  it('assigns, reassigns and unassigns, dropping users who could not read the issue', async () => {
    const assigned = await put(project.id, iid, { assignee_ids: [guest.id, reporter.id, outsider.id] });
    expect(assigned.body.assignees.map((user: any) => user.id)).toEqual([guest.id, reporter.id]);
    expect(assigned.body.assignee.id).toBe(guest.id);
    expect((await put(project.id, iid, { assignee_id: reporter.id })).body.assignees.map((user: any) => user.id)).toEqual([reporter.id]);
    expect((await put(project.id, iid, { assignee_ids: [0] })).body.assignees).toEqual([]);
    expect((await put(project.id, iid, { assignee_ids: [outsider.id] })).body.assignees).toEqual([]);
  });

  it('clears the milestone for 0 or a milestone of another project', async () => {
    const own = (await site.api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'edit-ms' }, as: owner.token })).body;
    const other = await createProject(site, {}, owner.token);
    const foreign = (await site.api(`/projects/${other.id}/milestones`, { method: 'POST', body: { title: 'foreign' }, as: owner.token })).body;
    expect((await put(project.id, iid, { milestone_id: own.id })).body.milestone.id).toBe(own.id);
    expect((await put(project.id, iid, { milestone_id: foreign.id })).body.milestone).toBe(null);
    await put(project.id, iid, { milestone_id: own.id });
    expect((await put(project.id, iid, { milestone_id: 0 })).body.milestone).toBe(null);
  });

  it('lets the author edit title and state but not labels; others who are not reporters get 403', async () => {
    const mine = await newIssue(project.id, { title: 'guest issue' }, guest.token);
    const edited = await put(project.id, mine.iid, { title: 'guest edited', labels: 'sneaky', state_event: 'close' }, guest.token);
    expect(edited.body).toMatchObject({ title: 'guest edited', labels: [], state: 'closed' });
    expect((await put(project.id, iid, { title: 'not yours' }, guest.token))).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
  });

  it('refuses an edit with nothing to change (400), a bad state_event (400), anonymous callers (401) and unknown iids (404)', async () => {
    expect(await put(project.id, iid, {})).toMatchObject({
      status: 400,
      body: { message: expect.stringMatching(/^title, description, .* are missing, at least one parameter must be provided$/) },
    });
    expect(await put(project.id, iid, { state_event: 'open' })).toMatchObject({ status: 400, body: { message: 'state_event does not have a valid value' } });
    expect((await put(project.id, iid, { title: 'x' }, null as unknown as string)).status).toBe(401);
    expect(await put(project.id, 9999, { title: 'x' })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });
});

describe('deleting an issue', () => {
  it('is for owners (204); reporters get 403, unknown iids 404 Issue', async () => {
    const target = await createProject(site, {}, owner.token);
    await addMember(site, 'projects', target.id, reporter, 20);
    const issue = await newIssue(target.id, { title: 'doomed', labels: 'gone' });
    const del = (iid: number, as: string) => site.api(`/projects/${target.id}/issues/${iid}`, { method: 'DELETE', as });
    expect(await del(issue.iid, reporter.token)).toMatchObject({ status: 403 });
    expect(await del(999, owner.token)).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    const db = site.site.db;
    db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('thumbsup', ?, 'Issue', ?, ?, ?)").run(owner.id, issue.id, now(), now());
    db.prepare("INSERT INTO subscriptions (user_id, subscribable_type, subscribable_id, subscribed, created_at, updated_at) VALUES (?, 'Issue', ?, 1, ?, ?)").run(reporter.id, issue.id, now(), now());
    expect(await del(issue.iid, owner.token)).toMatchObject({ status: 204 });
    expect((await site.api(`/projects/${target.id}/issues/${issue.iid}`, { as: owner.token })).status).toBe(404);
    for (const [table, column] of [['label_links', 'target_id'], ['award_emoji', 'awardable_id'], ['subscriptions', 'subscribable_id'], ['user_agent_details', 'subject_id']]) {
      expect(db.prepare(`SELECT count(*) FROM ${table} WHERE ${column} = ?`).pluck().get(issue.id), table).toBe(0);
    }
    expect(await openCount(target.id)).toBe(0);
    expect((await site.api(`/projects/${target.id}/labels/gone`, { as: owner.token })).body.open_issues_count).toBe(0);
  });
});

describe('confidential issues', () => {
  let secret: any;
  let shared: any;
  beforeAll(async () => {
    shared = await createProject(site, { visibility: 'public' }, owner.token);
    await addMember(site, 'projects', shared.id, reporter, 20);
    await addMember(site, 'projects', shared.id, guest, 10);
    await newIssue(shared.id, { title: 'plain', labels: 'conf-label' });
    secret = await newIssue(shared.id, { title: 'secret', confidential: true, labels: 'conf-label', assignee_ids: [guest.id] });
  });

  it('shows it to reporters, its author and assignees, and answers 404 to everyone else', async () => {
    const get = (as: string | null) => site.api(`/projects/${shared.id}/issues/${secret.iid}`, { as });
    expect((await get(reporter.token)).body.confidential).toBe(true);
    expect((await get(guest.token)).status).toBe(200);
    expect(await get(outsider.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect((await get(null)).status).toBe(404);
    expect((await site.api(`/projects/${shared.id}/issues/${secret.iid}/time_stats`, { as: outsider.token })).status).toBe(404);
    const stranger = await createUser(site);
    await addMember(site, 'projects', shared.id, stranger, 10);
    expect((await get(stranger.token)).status).toBe(404);
    expect((await put(shared.id, secret.iid, { title: 'x' }, stranger.token)).status).toBe(404);
  });

  it('leaves it out of every list and count for those who may not see it', async () => {
    const titles = async (path: string, as: string | null) => (await site.api(path, { as })).body.map((issue: any) => issue.title);
    expect(await titles(`/projects/${shared.id}/issues`, outsider.token)).toEqual(['plain']);
    expect((await site.api(`/projects/${shared.id}/issues`, { as: outsider.token })).headers['x-total']).toBe('1');
    expect(await titles(`/projects/${shared.id}/issues`, null)).toEqual(['plain']);
    expect(await titles(`/projects/${shared.id}/issues`, reporter.token)).toEqual(['secret', 'plain']);
    expect(await titles(`/projects/${shared.id}/issues`, guest.token)).toEqual(['secret', 'plain']);
    expect(await titles(`/issues?scope=all&search=secret`, outsider.token)).toEqual([]);
    expect(await titles(`/issues?scope=all&search=secret`, reporter.token)).toEqual(['secret']);
    expect(await titles(`/issues?scope=all&search=secret`, null)).toEqual([]);
    expect(await titles(`/projects/${shared.id}/issues?confidential=true`, reporter.token)).toEqual(['secret']);
    const label = async (as: string) => (await site.api(`/projects/${shared.id}/labels/conf-label`, { as })).body.open_issues_count;
    expect(await label(outsider.token)).toBe(1);
    expect(await label(reporter.token)).toBe(2);
    expect(await openCount(shared.id)).toBe(1);
  });
});

describe('issue lists', () => {
  let listed: any;
  let issues: any[];
  beforeAll(async () => {
    listed = await createProject(site, { visibility: 'internal' }, owner.token);
    await addMember(site, 'projects', listed.id, reporter, 20);
    const ms = (await site.api(`/projects/${listed.id}/milestones`, { method: 'POST', body: { title: 'Sprint 1', due_date: '2030-01-01' }, as: owner.token })).body;
    const later = (await site.api(`/projects/${listed.id}/milestones`, { method: 'POST', body: { title: 'Sprint 2', due_date: '2031-01-01' }, as: owner.token })).body;
    issues = [];
    issues.push(await newIssue(listed.id, { title: 'alpha bug', labels: 'bug', milestone_id: ms.id, due_date: '2030-05-01', weight: 2 }));
    issues.push(await newIssue(listed.id, { title: 'beta', description: 'contains the word needle', labels: 'bug,ui', assignee_ids: [reporter.id], milestone_id: later.id }, owner.token));
    issues.push(await newIssue(listed.id, { title: 'gamma', labels: 'ui', due_date: '2030-01-01', weight: 1 }, reporter.token));
    issues.push(await newIssue(listed.id, { title: 'delta' }, reporter.token));
    await put(listed.id, issues[3].iid, { state_event: 'close' });
    await site.api(`/projects/${listed.id}/labels/ui`, { method: 'PUT', body: { priority: 1 }, as: owner.token });
    await site.api(`/projects/${listed.id}/labels/bug`, { method: 'PUT', body: { priority: 5 }, as: owner.token });
  });
  const list = async (query: string, as = owner.token) => {
    const response = await site.api(`/projects/${listed.id}/issues${query}`, { as });
    expect(response.status, response.text).toBe(200);
    return iidsOf(response.body);
  };

  it('lists newest first with pagination headers, and HEAD answers the same headers', async () => {
    const response = await site.api(`/projects/${listed.id}/issues?per_page=2`, { as: owner.token });
    expect(iidsOf(response.body)).toEqual([4, 3]);
    expect(response.headers).toMatchObject({ 'x-total': '4', 'x-total-pages': '2', 'x-per-page': '2', 'x-page': '1', 'x-next-page': '2' });
    expect(String(response.headers.link)).toContain(`${site.url}/api/v4/projects/${listed.id}/issues?per_page=2&page=2`);
    const head = await site.api(`/projects/${listed.id}/issues?per_page=2`, { method: 'HEAD', as: owner.token });
    expect(head.headers['x-total']).toBe('4');
    expect(response.body[0]).not.toHaveProperty('subscribed');
    expect(response.body[0]).not.toHaveProperty('_links');
  });

  it('filters by state, labels (all of them, None, Any), milestone (title, None, Any) and iids', async () => {
    expect(await list('?state=opened')).toEqual([3, 2, 1]);
    expect(await list('?state=closed')).toEqual([4]);
    expect(await list('?state=all')).toEqual([4, 3, 2, 1]);
    expect(await list('?labels=bug')).toEqual([2, 1]);
    expect(await list('?labels=bug,ui')).toEqual([2]);
    expect(await list('?labels[]=bug&labels[]=ui')).toEqual([2]);
    expect(await list('?labels=None')).toEqual([4]);
    expect(await list('?labels=Any')).toEqual([3, 2, 1]);
    expect(await list('?labels=nosuch')).toEqual([]);
    expect(await list('?milestone=Sprint%201')).toEqual([1]);
    expect(await list('?milestone=None')).toEqual([4, 3]);
    expect(await list('?milestone=Any')).toEqual([2, 1]);
    expect(await list('?milestone=nosuch')).toEqual([]);
    expect(await list('?iids[]=1&iids[]=3')).toEqual([3, 1]);
    expect(await list('?iids=2')).toEqual([2]);
  });

  it('filters by scope (both spellings), author, assignee (id, None, Any), search and times', async () => {
    expect(await list('?scope=created_by_me', reporter.token)).toEqual([4, 3]);
    expect(await list('?scope=created-by-me', reporter.token)).toEqual([4, 3]);
    expect(await list('?scope=assigned_to_me', reporter.token)).toEqual([2]);
    expect(await list('?scope=assigned-to-me', reporter.token)).toEqual([2]);
    expect(await list(`?author_id=${owner.id}`)).toEqual([2, 1]);
    expect(await list(`?assignee_id=${reporter.id}`)).toEqual([2]);
    expect(await list('?assignee_id=None')).toEqual([4, 3, 1]);
    expect(await list('?assignee_id=any')).toEqual([2]);
    expect(await list('?search=NEEDLE')).toEqual([2]);
    expect(await list('?search=alpha')).toEqual([1]);
    expect(await list('?search=100%25')).toEqual([]);
    const third = issues[2].created_at;
    expect(await list(`?created_after=${encodeURIComponent(third)}`)).toEqual([4, 3]);
    expect(await list(`?created_before=${encodeURIComponent(third)}`)).toEqual([3, 2, 1]);
    expect(await list(`?updated_after=2100-01-01`)).toEqual([]);
    expect(await list(`?updated_before=2100-01-01T00:00:00Z`)).toEqual([4, 3, 2, 1]);
  });

  it('filters by my_reaction_emoji from the award_emoji table', async () => {
    const db = site.site.db;
    db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('thumbsup', ?, 'Issue', ?, ?, ?)").run(owner.id, issues[0].id, now(), now());
    db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('tada', ?, 'Issue', ?, ?, ?)").run(owner.id, issues[1].id, now(), now());
    db.prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('thumbsdown', ?, 'Issue', ?, ?, ?)").run(reporter.id, issues[1].id, now(), now());
    expect(await list('?my_reaction_emoji=thumbsup')).toEqual([1]);
    expect(await list('?my_reaction_emoji=Any')).toEqual([2, 1]);
    expect(await list('?my_reaction_emoji=None')).toEqual([4, 3]);
    expect(await list('?my_reaction_emoji=thumbsdown', reporter.token)).toEqual([2]);
    const [second, first] = (await site.api(`/projects/${listed.id}/issues?labels=bug`, { as: owner.token })).body;
    expect([first.upvotes, first.downvotes, second.upvotes, second.downvotes]).toEqual([1, 0, 0, 1]);
    expect(await list('?order_by=popularity&sort=desc&labels=bug')).toEqual([1, 2]);
  });

  it('counts user notes, not system notes, in user_notes_count', async () => {
    const db = site.site.db;
    const insert = db.prepare(
      "INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, body, system, discussion_id, created_at, updated_at) VALUES (?, 'Issue', ?, ?, ?, ?, ?, ?, ?)",
    );
    insert.run(listed.id, issues[2].id, owner.id, 'a comment', 0, 'd1', now(), now());
    insert.run(listed.id, issues[2].id, owner.id, 'changed the description', 1, 'd2', now(), now());
    const one = (await site.api(`/projects/${listed.id}/issues?iids[]=3`, { as: owner.token })).body[0];
    expect(one.user_notes_count).toBe(1);
  });

  it('orders by created_at, updated_at, due_date, weight, milestone_due, label_priority and priority, asc or desc', async () => {
    expect(await list('?sort=asc')).toEqual([1, 2, 3, 4]);
    await put(listed.id, 1, { description: 'touched' });
    expect((await list('?order_by=updated_at'))[0]).toBe(1);
    expect(await list('?order_by=due_date&sort=asc')).toEqual([3, 1, 2, 4]);
    expect(await list('?order_by=weight&sort=desc')).toEqual([1, 3, 4, 2]);
    expect(await list('?order_by=milestone_due&sort=asc')).toEqual([1, 2, 3, 4]);
    expect(await list('?order_by=label_priority&sort=asc')).toEqual([2, 3, 1, 4]);
    expect(await list('?order_by=priority&sort=asc')).toEqual([1, 2, 3, 4]);
    expect(await list('?order_by=relative_position')).toEqual([4, 3, 2, 1]);
  });

  it('pages a project\'s list from its indexes: no scan of issues and no sort, label filters included (EXPLAIN QUERY PLAN)', () => {
    const db = site.site.db;
    const actor = { user: findUserById(db, owner.id)!, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
    const source = { project: findProjectById(db, listed.id)! };
    const plan = (filters: IssueFilters, who: typeof actor | null = actor) => {
      const query = issueListQuery(db, who, source, filters)!;
      const where = [...query.candidates, ...query.residual];
      const sql = `EXPLAIN QUERY PLAN SELECT i.* ${query.from} WHERE ${where.join(' AND ')} ORDER BY ${query.order} LIMIT 20 OFFSET 0`;
      return (db.prepare(sql).all(query.params) as { detail: string }[]).map((row) => row.detail);
    };
    for (const [filters, index] of [
      [{}, 'issues_project_created'],
      [{ state: 'opened' }, 'issues_project_state_created'],
      [{ labels: ['bug'] }, 'issues_project_created'],
      [{ state: 'closed', labels: ['bug', 'ui'] }, 'issues_project_state_created'],
      [{ orderBy: 'updated_at' }, 'issues_project_updated'],
    ] as [IssueFilters, string][]) {
      const detail = plan(filters);
      expect(detail[0], JSON.stringify(filters)).toMatch(new RegExp(`^SEARCH i USING (COVERING )?INDEX ${index} `));
      expect(detail.filter((line) => /SCAN (?!json_each)|TEMP B-TREE/.test(line)), JSON.stringify(filters)).toEqual([]);
    }
    expect(plan({ labels: ['bug'] }).some((line) => /SEARCH l0 USING (COVERING )?INDEX label_links_target_label/.test(line))).toBe(true);
    expect(plan({}, null).filter((line) => /SCAN (?!json_each)|TEMP B-TREE/.test(line))).toEqual([]);
  });

  it('leaves X-Total out past 10,000 issues, and for narrowed lists of a project with more than that', async () => {
    const big = await createProject(site, {}, owner.token);
    const labelled = await newIssue(big.id, { title: 'the labelled one', labels: 'rare' });
    const db = site.site.db;
    const insert = db.prepare("INSERT INTO issues (project_id, iid, title, author_id, created_at, updated_at) VALUES (?, ?, 'bulk', ?, '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z')");
    db.transaction(() => {
      for (let iid = 2; iid <= 10_001; iid++) insert.run(big.id, iid, owner.id);
    })();
    const all = await site.api(`/projects/${big.id}/issues?per_page=1`, { as: owner.token });
    expect(all.headers['x-total']).toBeUndefined();
    expect(all.headers['x-next-page']).toBe('2');
    const rare = await site.api(`/projects/${big.id}/issues?labels=rare`, { as: owner.token });
    expect(iidsOf(rare.body)).toEqual([labelled.iid]);
    expect(rare.headers['x-total']).toBeUndefined();
    expect(rare.headers['x-next-page']).toBe('');
    const byIid = await site.api(`/projects/${big.id}/issues?iids[]=1&iids[]=2`, { as: owner.token });
    expect(byIid.headers['x-total']).toBe('2');
  });

  it('answers 400 for a bad filter, before it looks for the project', async () => {
    const bad = async (query: string, message: string) =>
      expect(await site.api(`/projects/999999/issues${query}`, { as: owner.token })).toMatchObject({ status: 400, body: { message } });
    await bad('?state=open', 'state does not have a valid value');
    await bad('?order_by=title', 'order_by does not have a valid value');
    await bad('?sort=up', 'sort does not have a valid value');
    await bad('?scope=mine', 'scope does not have a valid value');
    await bad('?assignee_id=me', 'assignee_id does not have a valid value');
    await bad('?author_id=x', 'author_id is invalid');
    await bad('?created_after=yesterday', 'created_after is invalid');
    await bad('?iids[]=a', 'iids is invalid');
    expect((await site.api('/projects/999999/issues', { as: owner.token })).status).toBe(404);
  });

  it('shows labels as LabelBasic objects with with_labels_details', async () => {
    const [issue] = (await site.api(`/projects/${listed.id}/issues?iids[]=2&with_labels_details=true`, { as: owner.token })).body;
    expect(issue.labels).toEqual([
      expect.objectContaining({ name: 'bug', color: '#428BCA', text_color: '#FFFFFF' }),
      expect.objectContaining({ name: 'ui' }),
    ]);
  });

  it('GET /issues lists the caller\'s own issues by default, 401 anonymous unless scope=all', async () => {
    expect(iidsOf((await site.api('/issues?search=gamma', { as: reporter.token })).body)).toEqual([3]);
    expect((await site.api('/issues?search=alpha', { as: reporter.token })).body).toEqual([]);
    expect((await site.api('/issues?scope=all&search=alpha', { as: reporter.token })).body.map((issue: any) => issue.title)).toEqual(['alpha bug']);
    expect(await site.api('/issues', { as: null })).toMatchObject({ status: 401 });
    expect(await site.api('/issues?state=bad', { as: null })).toMatchObject({ status: 400 });
    const anonymous = await site.api('/issues?scope=all', { as: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.every((issue: any) => issue.project_id !== listed.id && issue.project_id !== project.id)).toBe(true);
    const external = await createUser(site, { external: true });
    expect((await site.api('/issues?scope=all&search=alpha', { as: external.token })).body).toEqual([]);
  });

  it('GET /groups/:id/issues covers the projects of the group and its subgroups', async () => {
    const group = await createGroup(site, { visibility: 'private' });
    const sub = await createGroup(site, { parent_id: group.id, visibility: 'private' });
    const top = await createProject(site, { namespace_id: group.id });
    const below = await createProject(site, { namespace_id: sub.id });
    await site.api(`/projects/${top.id}/issues`, { method: 'POST', body: { title: 'top issue' } });
    await site.api(`/projects/${below.id}/issues`, { method: 'POST', body: { title: 'sub issue' } });
    await site.api(`/projects/${top.id}/issues`, { method: 'POST', body: { title: 'other' } });
    const titles = (await site.api(`/groups/${group.id}/issues?sort=asc`)).body.map((issue: any) => issue.title);
    expect(titles).toEqual(['top issue', 'sub issue', 'other']);
    expect((await site.api(`/groups/${sub.id}/issues`)).body.map((issue: any) => issue.title)).toEqual(['sub issue']);
    expect((await site.api(`/groups/${group.id}/issues`, { as: outsider.token })).status).toBe(404);
    await addMember(site, 'projects', below.id, outsider, 10);
    expect((await site.api(`/groups/${group.id}/issues`, { as: outsider.token })).body.map((issue: any) => issue.title)).toEqual(['sub issue']);
  });
});

describe('time tracking', () => {
  let iid: number;
  const post = (action: string, body: Record<string, unknown> = {}, as = owner.token) =>
    site.api(`/projects/${project.id}/issues/${iid}/${action}`, { method: 'POST', body, as });
  beforeAll(async () => {
    iid = (await newIssue(project.id, { title: 'timed' })).iid;
  });

  it('sets and resets the estimate in GitLab\'s duration syntax', async () => {
    // GitLab's time_tracking_endpoints.rb: `status :ok` on time_estimate and the resets; add_spent_time keeps Grape's 201.
    expect(await post('time_estimate', { duration: '1w2d3h30m' })).toMatchObject({
      status: 200,
      body: { time_estimate: 214200, total_time_spent: 0, human_time_estimate: '1w 2d 3h 30m', human_total_time_spent: null },
    });
    expect((await post('time_estimate', { duration: '1mo 2 days' })).body).toMatchObject({ time_estimate: 633600, human_time_estimate: '1mo 2d' });
    expect((await post('time_estimate', { duration: '1.5' })).body).toMatchObject({ time_estimate: 5400, human_time_estimate: '1h 30m' });
    expect(await post('reset_time_estimate')).toMatchObject({ status: 200, body: { time_estimate: 0, human_time_estimate: null } });
    expect(await post('time_estimate', { duration: 'soon' })).toMatchObject({ status: 400, body: { message: { time_estimate: ['has an invalid format'] } } });
    expect(await post('time_estimate', { duration: '-1h' })).toMatchObject({ status: 400 });
    expect(await post('time_estimate')).toMatchObject({ status: 400, body: { message: 'duration is missing' } });
  });

  it('adds, subtracts and resets spent time, never below zero', async () => {
    expect(await post('add_spent_time', { duration: '1h' })).toMatchObject({ status: 201, body: { total_time_spent: 3600, human_total_time_spent: '1h' } });
    expect((await post('add_spent_time', { duration: '-30m' })).body).toMatchObject({ total_time_spent: 1800, human_total_time_spent: '30m' });
    expect(await post('add_spent_time', { duration: '-2h' })).toMatchObject({
      status: 400,
      body: { message: { time_spent: ['Time to subtract exceeds the total time spent'] } },
    });
    expect((await post('add_spent_time', { duration: '45s' })).body.human_total_time_spent).toBe('30m 45s');
    expect((await site.api(`/projects/${project.id}/issues/${iid}/time_stats`, { as: guest.token })).body).toMatchObject({ total_time_spent: 1845 });
    expect((await site.api(`/projects/${project.id}/issues/${iid}`, { as: owner.token })).body.time_stats.total_time_spent).toBe(1845);
    expect(await post('reset_spent_time')).toMatchObject({ status: 200, body: { total_time_spent: 0, human_total_time_spent: null } });
    expect(site.site.db.prepare('SELECT count(*) FROM timelogs t JOIN issues i ON i.id = t.issue_id WHERE i.project_id = ? AND i.iid = ?').pluck().get(project.id, iid)).toBe(0);
  });

  it('is for reporters and above (403), signed in (401)', async () => {
    expect((await post('time_estimate', { duration: '1h' }, guest.token)).status).toBe(403);
    expect((await post('add_spent_time', { duration: '1h' }, null as unknown as string)).status).toBe(401);
    expect((await post('reset_spent_time', {}, outsider.token)).status).toBe(404);
  });
});

describe('subscriptions', () => {
  it('follows participants by default; subscribe and unsubscribe answer 201 or 304 when already so', async () => {
    const issue = await newIssue(project.id, { title: 'follow me', assignee_ids: [reporter.id] });
    const action = (name: string, as: string | null) => site.api(`/projects/${project.id}/issues/${issue.iid}/${name}`, { method: 'POST', body: {}, as });
    expect((await action('subscribe', owner.token)).status).toBe(304);
    expect((await action('subscribe', reporter.token)).status).toBe(304);
    expect(await action('unsubscribe', owner.token)).toMatchObject({ status: 201, body: { iid: issue.iid, subscribed: false } });
    expect((await action('unsubscribe', owner.token)).status).toBe(304);
    expect((await action('unsubscribe', guest.token)).status).toBe(304);
    expect(await action('subscribe', guest.token)).toMatchObject({ status: 201, body: { subscribed: true } });
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: guest.token })).body.subscribed).toBe(true);
    expect((await action('subscribe', null)).status).toBe(401);
    expect((await action('subscribe', outsider.token)).status).toBe(404);
  });
});

describe('moving an issue', () => {
  it('copies it to the other project with a new iid and closes the old one, pointing at it', async () => {
    const from = await createProject(site, {}, owner.token);
    const to = await createProject(site, {}, owner.token);
    await newIssue(to.id, { title: 'already there' });
    await site.api(`/projects/${to.id}/labels`, { method: 'POST', body: { name: 'kept', color: 'red' }, as: owner.token });
    const toMilestone = (await site.api(`/projects/${to.id}/milestones`, { method: 'POST', body: { title: 'same' }, as: owner.token })).body;
    const fromMilestone = (await site.api(`/projects/${from.id}/milestones`, { method: 'POST', body: { title: 'same' }, as: owner.token })).body;
    const issue = await newIssue(from.id, { title: 'travelling', description: 'd', labels: 'kept,dropped', milestone_id: fromMilestone.id, assignee_ids: [owner.id] });
    await site.api(`/projects/${from.id}/issues/${issue.iid}/add_spent_time`, { method: 'POST', body: { duration: '2h' }, as: owner.token });
    const moved = await site.api(`/projects/${from.id}/issues/${issue.iid}/move`, { method: 'POST', body: { to_project_id: to.id }, as: owner.token });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({
      iid: 2,
      project_id: to.id,
      title: 'travelling',
      description: 'd',
      state: 'opened',
      labels: ['kept'],
      milestone: { id: toMilestone.id },
      assignees: [{ id: owner.id }],
      author: { id: owner.id },
      time_stats: { total_time_spent: 7200 },
      web_url: `${site.url}/${to.path_with_namespace}/issues/2`,
    });
    const old = (await site.api(`/projects/${from.id}/issues/${issue.iid}`, { as: owner.token })).body;
    expect(old).toMatchObject({ state: 'closed', moved_to_id: moved.body.id, closed_by: { id: owner.id } });
    expect(await openCount(from.id)).toBe(0);
    expect(await openCount(to.id)).toBe(2);

    const again = await site.api(`/projects/${from.id}/issues/${issue.iid}/move`, { method: 'POST', body: { to_project_id: to.id }, as: owner.token });
    expect(again).toMatchObject({ status: 400, body: { message: 'Cannot move issue due to insufficient permissions!' } });
  });

  it('answers 400 for the same project, a target without admin rights or no to_project_id, 404 for unknown ones', async () => {
    const from = await createProject(site, {}, owner.token);
    const issue = await newIssue(from.id, { title: 'stay' });
    const move = (body: Record<string, unknown>, as = owner.token, iid = issue.iid) =>
      site.api(`/projects/${from.id}/issues/${iid}/move`, { method: 'POST', body, as });
    expect(await move({ to_project_id: from.id })).toMatchObject({ status: 400, body: { message: 'Cannot move issue to project it originates from!' } });
    const theirs = await createProject(site, { visibility: 'public' }, outsider.token);
    expect(await move({ to_project_id: theirs.id })).toMatchObject({ status: 400, body: { message: 'Cannot move issue due to insufficient permissions!' } });
    const hidden = await createProject(site, { visibility: 'private' }, outsider.token);
    expect(await move({ to_project_id: hidden.id })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await move({})).toMatchObject({ status: 400, body: { message: 'to_project_id is missing' } });
    expect(await move({ to_project_id: theirs.id }, owner.token, 999)).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
  });
});

describe('participants, closed_by and user_agent_detail', () => {
  it('lists the author, assignees and mentioned users who may read the issue', async () => {
    const issue = await newIssue(project.id, {
      title: `ping @${guest.username}`,
      description: `cc @${outsider.username} and @nobody-at-all, not \`@${owner.username}\``,
      assignee_ids: [reporter.id],
    });
    const response = await site.api(`/projects/${project.id}/issues/${issue.iid}/participants`, { as: guest.token });
    expect(response.body.map((user: any) => user.id)).toEqual([owner.id, reporter.id, guest.id]);
    expect(response.headers['x-total']).toBe('3');
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/participants?per_page=1&page=2`, { as: guest.token })).body.map((user: any) => user.id)).toEqual([
      reporter.id,
    ]);
  });

  it('answers empty closed_by and related_merge_requests lists when no merge request closes the issue', async () => {
    const response = await site.api(`/projects/${project.id}/issues/1/closed_by`, { as: owner.token });
    expect(response).toMatchObject({ status: 200, body: [] });
    expect(response.headers['x-total']).toBe('0');
    expect((await site.api(`/projects/${project.id}/issues/999/closed_by`, { as: owner.token })).status).toBe(404);
    expect(await site.api(`/projects/${project.id}/issues/1/related_merge_requests`, { as: owner.token })).toMatchObject({ status: 200, body: [] });
  });

  it('shows admins what created the issue', async () => {
    const issue = await newIssue(project.id, { title: 'with agent' });
    const detail = await site.api(`/projects/${project.id}/issues/${issue.iid}/user_agent_detail`);
    expect(detail).toMatchObject({ status: 200, body: { user_agent: expect.any(String), ip_address: expect.stringMatching(/127\.0\.0\.1/), akismet_submitted: false } });
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/user_agent_detail`, { as: owner.token })).status).toBe(403);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/user_agent_detail`, { as: null })).status).toBe(401);
    site.site.db.prepare("DELETE FROM user_agent_details WHERE subject_type = 'Issue' AND subject_id = ?").run(issue.id);
    expect(await site.api(`/projects/${project.id}/issues/${issue.iid}/user_agent_detail`)).toMatchObject({
      status: 404,
      body: { message: '404 UserAgentDetail Not Found' },
    });
  });
});

describe('deleting the project or group around issues', () => {
  it('removes the issues\' polymorphic rows with the project', async () => {
    const doomed = await createProject(site, {}, owner.token);
    const issue = await newIssue(doomed.id, { title: 'with links', labels: 'l1' });
    site.site.db
      .prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('tada', ?, 'Issue', ?, ?, ?)")
      .run(owner.id, issue.id, now(), now());
    expect((await site.api(`/projects/${doomed.id}`, { method: 'DELETE', as: owner.token })).status).toBe(202);
    const db = site.site.db;
    expect(db.prepare("SELECT count(*) FROM label_links WHERE target_type = 'Issue' AND target_id = ?").pluck().get(issue.id)).toBe(0);
    expect(db.prepare("SELECT count(*) FROM award_emoji WHERE awardable_type = 'Issue' AND awardable_id = ?").pluck().get(issue.id)).toBe(0);
    expect(db.prepare("SELECT count(*) FROM user_agent_details WHERE subject_type = 'Issue' AND subject_id = ?").pluck().get(issue.id)).toBe(0);
  });
});
