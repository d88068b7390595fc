import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Issue webhooks (issue 14, item 8): issues_events hooks get GitLab's Issue Hook payload for an
 * issue opened, edited, closed and reopened; confidential issues go to confidential_issues_events
 * hooks only; deliveries leave after the write commits, through the hook queue.
 */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let project: any;
let hooks: HookReceiver;

beforeAll(async () => {
  hooks = await startHookReceiver();
  site = await startSite();
  [owner, developer] = await Promise.all([createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'private', description: 'Hooked' }, owner.token);
  await addMember(site, 'projects', project.id, developer, 30);
  const hook = (path: string, flags: Record<string, boolean>) =>
    site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: `${hooks.origin}${path}`, push_events: false, ...flags } });
  expect((await hook('/issues', { issues_events: true })).status).toBe(201);
  expect((await hook('/confidential', { confidential_issues_events: true })).status).toBe(201);
  expect((await hook('/none', { issues_events: false })).status).toBe(201);
  expect((await hook('/notes', { note_events: true })).status).toBe(201);
});
afterAll(async () => {
  await site.stop();
  await hooks.stop();
});

const deliveriesTo = (path: string) => hooks.deliveriesTo(path);

async function nextDelivery(path: string, count: number) {
  await waitFor(() => deliveriesTo(path).length >= count, { message: `delivery ${count} to ${path}` });
  return deliveriesTo(path)[count - 1];
}

describe('issue hooks', () => {
  it('delivers GitLab’s Issue Hook payload when an issue opens, with its labels and assignees', async () => {
    const created = await site.api(`/projects/${project.id}/issues`, {
      method: 'POST',
      as: owner.token,
      body: { title: 'Hooked issue', description: 'It hooks', labels: 'bug', assignee_ids: [developer.id] },
    });
    expect(created.status).toBe(201);
    const delivery = await nextDelivery('/issues', 1);
    expect(delivery.event).toBe('Issue Hook');
    const { body } = delivery;
    expect(Object.keys(body).sort()).toEqual(['assignee', 'assignees', 'changes', 'event_type', 'labels', 'object_attributes', 'object_kind', 'project', 'repository', 'user']);
    expect(body).toMatchObject({
      object_kind: 'issue',
      event_type: 'issue',
      user: { id: owner.id, username: owner.username, email: owner.email },
      project: { id: project.id, path_with_namespace: project.path_with_namespace, web_url: project.web_url, description: 'Hooked' },
      object_attributes: {
        id: created.body.id,
        iid: created.body.iid,
        title: 'Hooked issue',
        description: 'It hooks',
        state: 'opened',
        action: 'open',
        confidential: false,
        author_id: owner.id,
        project_id: project.id,
        assignee_ids: [developer.id],
        assignee_id: developer.id,
        url: `${project.web_url}/issues/${created.body.iid}`,
        time_estimate: 0,
        human_time_estimate: null,
      },
      labels: [{ title: 'bug', project_id: project.id, type: 'ProjectLabel' }],
      assignees: [{ id: developer.id, username: developer.username }],
      assignee: { id: developer.id },
      changes: {},
      repository: { name: project.name, url: project.ssh_url_to_repo, homepage: project.web_url },
    });
  });

  it('sends `update` with the changes, `close` and `reopen` for state changes', async () => {
    const issue = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Lifecycle', labels: 'bug' } })).body;
    const start = deliveriesTo('/issues').length;
    const put = (body: object) => site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', as: owner.token, body });
    expect((await put({ title: 'Lifecycle 2', labels: 'ui', assignee_ids: [developer.id] })).status).toBe(200);
    const update = (await nextDelivery('/issues', start + 2)).body;
    expect(update.object_attributes).toMatchObject({ action: 'update', title: 'Lifecycle 2' });
    expect(update.changes.title).toEqual({ previous: 'Lifecycle', current: 'Lifecycle 2' });
    expect(update.changes.labels.previous.map((label: any) => label.title)).toEqual(['bug']);
    expect(update.changes.labels.current.map((label: any) => label.title)).toEqual(['ui']);
    expect(update.changes.assignees).toEqual({ previous: [], current: [expect.objectContaining({ id: developer.id, username: developer.username })] });
    expect(update.changes.updated_at.previous).not.toBe(update.changes.updated_at.current);

    expect((await put({ state_event: 'close' })).status).toBe(200);
    const close = (await nextDelivery('/issues', start + 3)).body;
    expect(close.object_attributes).toMatchObject({ action: 'close', state: 'closed' });
    expect(close.changes.state).toEqual({ previous: 'opened', current: 'closed' });
    expect((await put({ state_event: 'reopen' })).status).toBe(200);
    expect((await nextDelivery('/issues', start + 4)).body.object_attributes).toMatchObject({ action: 'reopen', state: 'opened' });
  });

  it('sends a confidential issue to confidential_issues_events hooks only, and nothing to hooks without the flag', async () => {
    const before = deliveriesTo('/issues').length;
    const secret = await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Secret', confidential: true } });
    expect(secret.status).toBe(201);
    const delivery = await nextDelivery('/confidential', 1);
    expect(delivery.event).toBe('Issue Hook');
    expect(delivery.body).toMatchObject({ object_kind: 'issue', event_type: 'confidential_issue', object_attributes: { confidential: true, action: 'open' } });
    expect(delivery.body.assignees).toBeUndefined();
    // A public issue afterwards still reaches the issues hook: the confidential one never did.
    await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Public again' } });
    expect((await nextDelivery('/issues', before + 1)).body.object_attributes.title).toBe('Public again');
    expect(deliveriesTo('/none')).toEqual([]);
    expect(deliveriesTo('/confidential').length).toBe(1);
  });

  it('queues nothing for a write that fails, and nothing for a delete', async () => {
    const before = deliveriesTo('/issues').length;
    expect((await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'x', due_date: 'soon' } })).status).toBe(400);
    const issue = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Short lived' } })).body;
    await nextDelivery('/issues', before + 1);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    await waitFor(() => site.site.db.prepare('SELECT count(*) FROM web_hook_queue').pluck().get() === 0, { message: 'queue drained' });
    expect(deliveriesTo('/issues').length).toBe(before + 1);
  });
});

describe('note hooks for comments on issues', () => {
  /** A comment by the developer, through the notes API. */
  async function comment(issueIid: number, body: string) {
    const response = await site.api(`/projects/${project.id}/issues/${issueIid}/notes`, { method: 'POST', as: developer.token, body: { body } });
    expect(response.status, response.text).toBe(201);
    return { ...response.body, discussion_id: site.site.db.prepare('SELECT discussion_id FROM notes WHERE id = ?').pluck().get(response.body.id) as string };
  }

  it('delivers GitLab’s Note Hook payload with the note and its issue to note_events hooks only', async () => {
    const issue = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Commented', labels: 'bug', assignee_ids: [developer.id] } })).body;
    const note = await comment(issue.iid, 'A comment');
    const delivery = await nextDelivery('/notes', 1);
    expect(delivery.event).toBe('Note Hook');
    expect(delivery.body).toMatchObject({
      object_kind: 'note',
      event_type: 'note',
      user: { id: developer.id, username: developer.username },
      project_id: project.id,
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
      object_attributes: {
        id: note.id,
        note: 'A comment',
        noteable_type: 'Issue',
        noteable_id: issue.id,
        author_id: developer.id,
        system: false,
        discussion_id: note.discussion_id,
        url: `${project.web_url}/issues/${issue.iid}#note_${note.id}`,
      },
      issue: { id: issue.id, iid: issue.iid, title: 'Commented', assignee_ids: [developer.id], labels: [{ title: 'bug' }], url: `${project.web_url}/issues/${issue.iid}` },
      repository: { name: project.name },
    });
    expect(delivery.body.object_attributes.body).toBeUndefined();
  });

  it('sends no note hook for a comment on a confidential issue', async () => {
    const before = deliveriesTo('/notes').length;
    const secret = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Hidden', confidential: true } })).body;
    await comment(secret.iid, 'Hush');
    const visible = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Open' } })).body;
    await comment(visible.iid, 'Loud');
    expect((await nextDelivery('/notes', before + 1)).body.object_attributes.note).toBe('Loud');
    expect(deliveriesTo('/notes').length).toBe(before + 1);
  });
});
