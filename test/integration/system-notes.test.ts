import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * System notes and resource events (issue 14, item 4): what an issue's changes write into its
 * notes (GitLab's SystemNoteService texts) and into resource_label_events,
 * resource_milestone_events and resource_state_events, read through their APIs.
 */
let site: TestSite;
let owner: TestUser;
let dev: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: any;
let project: any;

async function newIssue(body: Record<string, unknown>, projectId = project.id) {
  const response = await site.api(`/projects/${projectId}/issues`, { method: 'POST', body, as: owner.token });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const edit = async (iid: number, body: Record<string, unknown>) => {
  const response = await site.api(`/projects/${project.id}/issues/${iid}`, { method: 'PUT', body, as: owner.token });
  expect(response.status, response.text).toBe(200);
  return response.body;
};

/** The system notes of an issue, oldest first. */
const systemNotes = async (iid: number, projectId = project.id) =>
  (await site.api(`/projects/${projectId}/issues/${iid}/notes?sort=asc&per_page=100`, { as: owner.token })).body.filter((note: any) => note.system).map((note: any) => note.body);

beforeAll(async () => {
  site = await startSite();
  [owner, dev, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site)]);
  group = await createGroup(site, {}, owner.token);
  project = await createProject(site, { visibility: 'private', namespace_id: group.id, path: 'tracker' }, owner.token);
  await addMember(site, 'projects', project.id, dev, 30, owner.token);
  await addMember(site, 'projects', project.id, guest, 10, owner.token);
});
afterAll(() => site.stop());

describe('system notes', () => {
  it('writes GitLab texts for each change, keeps them out of user_notes_count', async () => {
    const milestone = (await site.api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'v1' }, as: owner.token })).body;
    const issue = await newIssue({ title: 'Crash', labels: 'bug', due_date: '2030-03-02', milestone_id: milestone.id });
    const labels = (await site.api(`/projects/${project.id}/labels`, { as: owner.token })).body;
    const bug = labels.find((label: any) => label.name === 'bug');
    expect(await systemNotes(issue.iid)).toEqual(['changed due date to March 2, 2030', `changed milestone to %${milestone.iid}`, `added ~${bug.id} label`]);

    await edit(issue.iid, { title: 'Crash on start', description: 'Steps' });
    await edit(issue.iid, { labels: 'ui,ux', assignee_ids: [dev.id, guest.id] });
    await edit(issue.iid, { state_event: 'close' });
    await edit(issue.iid, { state_event: 'reopen', confidential: true, discussion_locked: true, due_date: '', milestone_id: 0 });
    await edit(issue.iid, { assignee_ids: [dev.id], confidential: false, discussion_locked: false });
    const after = (await site.api(`/projects/${project.id}/labels`, { as: owner.token })).body;
    const id = (name: string) => after.find((label: any) => label.name === name).id;
    expect((await systemNotes(issue.iid)).slice(3)).toEqual([
      'changed title from **Crash** to **Crash{+ on start+}**',
      'changed the description',
      `added ~${id('ui')} ~${id('ux')} and removed ~${bug.id} labels`,
      `assigned to @${dev.username} and @${guest.username}`,
      'closed',
      'reopened',
      'locked this issue',
      'removed due date',
      'removed milestone',
      'made the issue confidential',
      'unlocked this issue',
      `unassigned @${guest.username}`,
      'made the issue visible to everyone',
    ]);
    const notes = (await site.api(`/projects/${project.id}/issues/${issue.iid}/notes?sort=asc`, { as: owner.token })).body;
    expect(notes[0]).toMatchObject({ system: true, type: null, author: { id: owner.id }, noteable_type: 'Issue', noteable_iid: issue.iid, resolvable: false });
    const shown = (await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token })).body;
    expect(shown.user_notes_count).toBe(0);
  });

  it('refuses edits and deletes of system notes (403) and replies to them (400)', async () => {
    const issue = await newIssue({ title: 'Sys' });
    await edit(issue.iid, { state_event: 'close' });
    const [closed] = (await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { as: owner.token })).body;
    expect(closed).toMatchObject({ body: 'closed', system: true });
    const path = `/projects/${project.id}/issues/${issue.iid}/notes/${closed.id}`;
    expect(await site.api(path, { method: 'PUT', body: { body: 'x' }, as: owner.token })).toMatchObject({ status: 403 });
    expect(await site.api(path, { method: 'DELETE', as: owner.token })).toMatchObject({ status: 403 });
    const discussions = (await site.api(`/projects/${project.id}/issues/${issue.iid}/discussions`, { as: owner.token })).body;
    expect(discussions).toEqual([{ id: expect.stringMatching(/^[0-9a-f]{40}$/), individual_note: true, notes: [expect.objectContaining({ id: closed.id })] }]);
    expect(
      await site.api(`/projects/${project.id}/issues/${issue.iid}/discussions/${discussions[0].id}/notes`, { method: 'POST', body: { body: 'hi' }, as: owner.token }),
    ).toMatchObject({ status: 400, body: { message: '400 (Bad request) "Discussion can not be replied to." not given' } });
  });

  it('notes time tracking', async () => {
    const issue = await newIssue({ title: 'Timed' });
    const post = (path: string, body: Record<string, unknown> = {}) => site.api(`/projects/${project.id}/issues/${issue.iid}/${path}`, { method: 'POST', body, as: owner.token });
    await post('time_estimate', { duration: '1w2d' });
    await post('add_spent_time', { duration: '1h30m' });
    await post('add_spent_time', { duration: '-30m' });
    await post('reset_spent_time');
    await post('reset_time_estimate');
    expect(await systemNotes(issue.iid)).toEqual([
      'changed time estimate to 1w 2d',
      'added 1h 30m of time spent',
      'subtracted 30m of time spent',
      'removed time spent',
      'removed time estimate',
    ]);
  });

  it('notes a move on both issues, and the copy keeps the resource events', async () => {
    const other = await createProject(site, { visibility: 'private', path: 'elsewhere' }, owner.token);
    const sibling = await createProject(site, { visibility: 'private', namespace_id: group.id, path: 'sibling' }, owner.token);
    const issue = await newIssue({ title: 'Moving', labels: 'bug' });
    const moved = (await site.api(`/projects/${project.id}/issues/${issue.iid}/move`, { method: 'POST', body: { to_project_id: other.id }, as: owner.token })).body;
    expect((await systemNotes(issue.iid)).slice(-1)).toEqual([`moved to ${other.path_with_namespace}#${moved.iid}`]);
    const copied = await systemNotes(moved.iid, other.id);
    expect(copied[copied.length - 1]).toBe(`moved from ${project.path_with_namespace}#${issue.iid}`);
    expect(copied.filter((body: string) => body.startsWith('added ~'))).toHaveLength(1);
    const events = (await site.api(`/projects/${other.id}/issues/${moved.iid}/resource_label_events`, { as: owner.token })).body;
    expect(events).toEqual([expect.objectContaining({ resource_type: 'Issue', resource_id: moved.id, action: 'add', label: expect.objectContaining({ name: 'bug' }) })]);
    const second = await newIssue({ title: 'Next door' });
    const near = (await site.api(`/projects/${project.id}/issues/${second.iid}/move`, { method: 'POST', body: { to_project_id: sibling.id }, as: owner.token })).body;
    expect((await systemNotes(second.iid)).slice(-1)).toEqual([`moved to sibling#${near.iid}`]);
  });
});

describe('resource events', () => {
  it('lists label, milestone and state events with GitLab shapes, and reads one', async () => {
    const milestone = (await site.api(`/groups/${group.id}/milestones`, { method: 'POST', body: { title: 'Q1' }, as: owner.token })).body;
    const issue = await newIssue({ title: 'Evented', labels: 'feature' });
    await edit(issue.iid, { milestone_id: milestone.id, remove_labels: 'feature' });
    expect((await systemNotes(issue.iid)).slice(-2)).toEqual(['changed milestone to %"Q1"', expect.stringMatching(/^removed ~\d+ label$/)]);
    await edit(issue.iid, { state_event: 'close' });
    await edit(issue.iid, { milestone_id: 0 });
    await edit(issue.iid, { state_event: 'reopen' });
    const base = `/projects/${project.id}/issues/${issue.iid}`;
    const labelEvents = await site.api(`${base}/resource_label_events`, { as: guest.token });
    expect(labelEvents.status).toBe(200);
    expect(labelEvents.headers['x-total']).toBe('2');
    expect(labelEvents.body).toEqual([
      {
        id: expect.any(Number),
        user: expect.objectContaining({ id: owner.id, username: owner.username }),
        created_at: expect.any(String),
        resource_type: 'Issue',
        resource_id: issue.id,
        label: { id: expect.any(Number), name: 'feature', color: expect.any(String), description: null, text_color: expect.any(String) },
        action: 'add',
      },
      expect.objectContaining({ action: 'remove', label: expect.objectContaining({ name: 'feature' }) }),
    ]);
    const milestoneEvents = (await site.api(`${base}/resource_milestone_events`, { as: guest.token })).body;
    expect(milestoneEvents).toEqual([
      expect.objectContaining({ resource_type: 'Issue', resource_id: issue.id, action: 'add', state: 'opened', milestone: expect.objectContaining({ id: milestone.id, title: 'Q1', group_id: group.id }) }),
      expect.objectContaining({ action: 'remove', state: 'closed', milestone: expect.objectContaining({ id: milestone.id }) }),
    ]);
    const stateEvents = (await site.api(`${base}/resource_state_events`, { as: guest.token })).body;
    expect(stateEvents.map((event: any) => [event.state, event.resource_id, event.user.id])).toEqual([
      ['closed', issue.id, owner.id],
      ['reopened', issue.id, owner.id],
    ]);
    expect(Object.keys(stateEvents[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'state']);
    const one = await site.api(`${base}/resource_state_events/${stateEvents[1].id}`, { as: guest.token });
    expect(one).toMatchObject({ status: 200, body: { id: stateEvents[1].id, state: 'reopened' } });
    expect(await site.api(`${base}/resource_label_events/${labelEvents.body[0].id}`, { as: guest.token })).toMatchObject({ status: 200, body: { action: 'add' } });
    expect(await site.api(`${base}/resource_milestone_events/${milestoneEvents[0].id}`, { as: guest.token })).toMatchObject({ status: 200, body: { action: 'add' } });
  });

  it('answers 400, 401 and 404 as the notes do', async () => {
    const issue = await newIssue({ title: 'Quiet' });
    const base = `/projects/${project.id}/issues/${issue.iid}`;
    expect(await site.api(`${base}/resource_state_events`, { as: null })).toMatchObject({ status: 401 });
    expect(await site.api(`${base}/resource_state_events`, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await site.api(`/projects/${project.id}/issues/999/resource_label_events`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect(await site.api(`${base}/resource_label_events/abc`, { as: owner.token })).toMatchObject({ status: 400, body: { message: 'event_id is invalid' } });
    expect(await site.api(`${base}/resource_label_events/99999`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await site.api(`${base}/resource_milestone_events`, { as: owner.token })).toMatchObject({ status: 200, body: [] });
    const secret = await newIssue({ title: 'Secret', confidential: true });
    expect(await site.api(`/projects/${project.id}/issues/${secret.iid}/resource_label_events`, { as: guest.token })).toMatchObject({ status: 404 });
  });
});

describe('a deleted milestone', () => {
  it('leaves "removed milestone" and a remove event on each of its issues', async () => {
    const milestone = (await site.api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'Doomed' }, as: owner.token })).body;
    const issue = await newIssue({ title: 'Planned', milestone_id: milestone.id });
    expect((await site.api(`/projects/${project.id}/milestones/${milestone.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await systemNotes(issue.iid)).slice(-1)).toEqual(['removed milestone']);
    const events = (await site.api(`/projects/${project.id}/issues/${issue.iid}/resource_milestone_events`, { as: owner.token })).body;
    expect(events.map((event: any) => [event.action, event.milestone])).toEqual([
      ['add', null],
      ['remove', null],
    ]);
  });
});
