import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Todos (issue 14, item 6): made by assignments and mentions (`@user`, `@group`, directly
 * addressed), by POST .../todo (304 when pending), listed with GitLab's filters, marked done one
 * by one or all at once, done for the closer when an issue closes, gone with the issue.
 */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let project: any;

const TODO_KEYS = ['action_name', 'author', 'body', 'created_at', 'id', 'project', 'state', 'target', 'target_type', 'target_url'];

async function newIssue(body: Record<string, unknown>, as = owner.token, projectId = project.id) {
  const response = await site.api(`/projects/${projectId}/issues`, { method: 'POST', body, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function todosOf(user: TestUser, query = '') {
  const response = await site.api(`/todos${query}`, { as: user.token });
  expect(response.status, response.text).toBe(200);
  return response.body as any[];
}

const todosAbout = async (user: TestUser, issue: { id: number }, query = '') => (await todosOf(user, query)).filter((todo) => todo.target?.id === issue.id);

beforeAll(async () => {
  site = await startSite();
  [owner, developer, reporter, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'private' }, owner.token);
  await addMember(site, 'projects', project.id, developer, 30);
  await addMember(site, 'projects', project.id, reporter, 20);
});
afterAll(() => site.stop());

describe('todos from assignments and mentions', () => {
  it('gives an assignee an `assigned` todo with GitLab’s Todo entity and the issue as its target', async () => {
    const issue = await newIssue({ title: 'Fix the build', assignee_ids: [developer.id] });
    const [todo] = await todosAbout(developer, issue);
    expect(Object.keys(todo).sort()).toEqual(TODO_KEYS);
    expect(todo).toMatchObject({
      action_name: 'assigned',
      target_type: 'Issue',
      state: 'pending',
      body: 'Fix the build',
      author: { id: owner.id, username: owner.username },
      project: { id: project.id, path_with_namespace: project.path_with_namespace, name_with_namespace: project.name_with_namespace },
      target: { id: issue.id, iid: issue.iid, title: 'Fix the build', assignees: [{ id: developer.id }], project_id: project.id },
      target_url: `${site.url}/${project.path_with_namespace}/issues/${issue.iid}`,
    });
    expect(await todosAbout(owner, issue)).toEqual([]);
  });

  it('gives mentioned users `mentioned` todos and the users a description opens with `directly_addressed` ones, once each, to readers only', async () => {
    const issue = await newIssue({ title: 'Mentions', description: `@${developer.username}, please look.\n\nCC @${reporter.username} and @${outsider.username} \`@${owner.username}\` a@${reporter.username}.com @nobody-here` });
    expect((await todosAbout(developer, issue)).map((todo) => todo.action_name)).toEqual(['directly_addressed']);
    expect((await todosAbout(reporter, issue)).map((todo) => todo.action_name)).toEqual(['mentioned']);
    // The outsider cannot read the private project's issue; a mention in code is none.
    expect(await todosAbout(outsider, issue)).toEqual([]);
    expect(await todosAbout(owner, issue)).toEqual([]);
  });

  it('an assignee who is also mentioned gets the assignment only; a confidential issue’s mention reaches only who may read it', async () => {
    const issue = await newIssue({ title: 'Both', description: `ping @${developer.username}`, assignee_ids: [developer.id] });
    expect((await todosAbout(developer, issue)).map((todo) => todo.action_name)).toEqual(['assigned']);
    const guest = await createUser(site);
    await addMember(site, 'projects', project.id, guest, 10);
    const secret = await newIssue({ title: 'Secret', confidential: true, description: `cc @${guest.username} @${reporter.username}` });
    expect(await todosAbout(guest, secret)).toEqual([]);
    expect((await todosAbout(reporter, secret)).map((todo) => todo.action_name)).toEqual(['mentioned']);
  });

  it('an @group mention gives the group’s members who may read the issue a todo', async () => {
    const group = await createGroup(site, { visibility: 'public' });
    const member = await createUser(site);
    await addMember(site, 'groups', group.id, member, 30);
    await addMember(site, 'groups', group.id, outsider, 30);
    await addMember(site, 'projects', project.id, member, 20);
    const issue = await newIssue({ title: 'Team', description: `hey @${group.path}` });
    expect((await todosAbout(member, issue)).map((todo) => todo.action_name)).toEqual(['mentioned']);
    expect(await todosAbout(outsider, issue)).toEqual([]);

    // A subgroup by its full path.
    const subgroup = await createGroup(site, { visibility: 'public', parent_id: group.id });
    const subMember = await createUser(site);
    await addMember(site, 'groups', subgroup.id, subMember, 30);
    await addMember(site, 'projects', project.id, subMember, 20);
    const nested = await newIssue({ title: 'Subteam', description: `hey @${subgroup.full_path}.` });
    expect((await todosAbout(subMember, nested)).map((todo) => todo.action_name)).toEqual(['mentioned']);
  });

  it('an edit gives todos to new assignees and to users newly mentioned, not again to those mentioned before', async () => {
    const issue = await newIssue({ title: 'Edits', description: `cc @${reporter.username}` });
    const [first] = await todosAbout(reporter, issue);
    await site.api(`/todos/${first.id}/mark_as_done`, { method: 'POST', as: reporter.token });
    const edited = await site.api(`/projects/${project.id}/issues/${issue.iid}`, {
      method: 'PUT',
      as: owner.token,
      body: { description: `cc @${reporter.username} and @${developer.username}`, assignee_ids: [owner.id] },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(await todosAbout(reporter, issue)).toEqual([]);
    expect((await todosAbout(developer, issue)).map((todo) => todo.action_name)).toEqual(['mentioned']);
    expect((await todosAbout(owner, issue)).map((todo) => todo.action_name)).toEqual(['assigned']);
  });

  it('a comment’s mentions give todos whose body is the note and whose URL points at it', async () => {
    const issue = await newIssue({ title: 'Noted' });
    const body = `@${reporter.username} what do you think?`;
    const note = await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', as: owner.token, body: { body } });
    expect(note.status, note.text).toBe(201);
    const [todo] = await todosAbout(reporter, issue);
    expect(todo).toMatchObject({ action_name: 'directly_addressed', body });
    expect(todo.target_url).toMatch(new RegExp(`/issues/${issue.iid}#note_${note.body.id}$`));
    // The comment's author has dealt with the issue: their pending todos about it are done (TodoService#new_note).
    const reply = await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', as: reporter.token, body: { body: 'Looks good' } });
    expect(reply.status, reply.text).toBe(201);
    expect(await todosAbout(reporter, issue)).toEqual([]);
    expect((await todosAbout(reporter, issue, '?state=done')).length).toBe(1);
  });
});

describe('POST /projects/:id/issues/:issue_iid/todo', () => {
  it('marks the issue for the caller (201), then 304 while a todo about it is pending', async () => {
    const issue = await newIssue({ title: 'Mark me' });
    const marked = await site.api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST', as: reporter.token });
    expect(marked.status, marked.text).toBe(201);
    expect(marked.body).toMatchObject({ action_name: 'marked', state: 'pending', author: { id: reporter.id }, target: { iid: issue.iid } });
    const again = await site.api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST', as: reporter.token });
    expect(again.status).toBe(304);
    await site.api(`/todos/${marked.body.id}/mark_as_done`, { method: 'POST', as: reporter.token });
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST', as: reporter.token })).status).toBe(201);
  });

  it('answers 401, 400, 404 (unknown iid, hidden project, confidential issue)', async () => {
    const issue = await newIssue({ title: 'Hidden', confidential: true });
    const guest = await createUser(site);
    await addMember(site, 'projects', project.id, guest, 10);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST', as: null })).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/issues/abc/todo`, { method: 'POST', as: owner.token })).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/issues/9999/todo`, { method: 'POST', as: owner.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST', as: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/todo`, { method: 'POST', as: guest.token })).status).toBe(404);
  });
});

describe('GET /todos and marking todos done', () => {
  let lister: TestUser;
  let other: any;
  beforeAll(async () => {
    lister = await createUser(site);
    other = await createProject(site, { visibility: 'public' }, developer.token);
    await addMember(site, 'projects', project.id, lister, 30);
    await newIssue({ title: 'One', assignee_ids: [lister.id] });
    await newIssue({ title: 'Two', description: `@${lister.username}` });
    await newIssue({ title: 'Three', description: `see @${lister.username}` }, developer.token, other.id);
  });

  it('lists the caller’s pending todos newest first, paged, with the action, author_id, project_id, state and type filters', async () => {
    const all = await todosOf(lister);
    expect(all.map((todo) => todo.body)).toEqual(['Three', 'Two', 'One']);
    const page = await site.api('/todos?per_page=2&page=2', { as: lister.token });
    expect(page.body.map((todo: any) => todo.body)).toEqual(['One']);
    expect(page.headers['x-total']).toBe('3');
    expect(page.headers['x-page']).toBe('2');
    expect((await todosOf(lister, '?action=assigned')).map((todo) => todo.body)).toEqual(['One']);
    expect((await todosOf(lister, '?action=directly_addressed')).map((todo) => todo.body)).toEqual(['Two']);
    expect((await todosOf(lister, `?author_id=${developer.id}`)).map((todo) => todo.body)).toEqual(['Three']);
    expect((await todosOf(lister, `?project_id=${project.id}`)).map((todo) => todo.body)).toEqual(['Two', 'One']);
    expect((await todosOf(lister, '?type=Issue')).length).toBe(3);
    expect(await todosOf(lister, '?type=MergeRequest')).toEqual([]);
    expect(await todosOf(lister, '?state=done')).toEqual([]);
  });

  it('answers 401 without a caller and 400 for bad filters', async () => {
    expect((await site.api('/todos', { as: null })).status).toBe(401);
    expect((await site.api('/todos', { as: lister.token, method: 'GET' })).status).toBe(200);
    expect((await site.api('/todos?action=poked', { as: lister.token })).body).toEqual({ message: 'action does not have a valid value' });
    expect((await site.api('/todos?state=later', { as: lister.token })).status).toBe(400);
    expect((await site.api('/todos?type=Snippet', { as: lister.token })).status).toBe(400);
    expect((await site.api('/todos?author_id=x', { as: lister.token })).status).toBe(400);
  });

  it('marks one todo done (201 with the todo), 404 for another user’s, then all (204)', async () => {
    const [newest, ...rest] = await todosOf(lister);
    expect((await site.api(`/todos/${newest.id}/mark_as_done`, { method: 'POST', as: developer.token })).status).toBe(404);
    expect((await site.api(`/todos/${newest.id}/mark_as_done`, { method: 'POST', as: null })).status).toBe(401);
    expect((await site.api('/todos/abc/mark_as_done', { method: 'POST', as: lister.token })).status).toBe(400);
    const done = await site.api(`/todos/${newest.id}/mark_as_done`, { method: 'POST', as: lister.token });
    expect(done.status, done.text).toBe(201);
    expect(done.body).toMatchObject({ id: newest.id, state: 'done', body: 'Three' });
    expect((await todosOf(lister)).map((todo) => todo.id)).toEqual(rest.map((todo) => todo.id));
    expect((await todosOf(lister, '?state=done')).map((todo) => todo.id)).toEqual([newest.id]);
    const all = await site.api('/todos/mark_as_done', { method: 'POST', as: lister.token });
    expect(all.status).toBe(204);
    expect(await todosOf(lister)).toEqual([]);
    expect((await todosOf(lister, '?state=done')).length).toBe(3);
  });

  it('reads the list through the todos_user_state index', () => {
    const plan = site.site.db.prepare("EXPLAIN QUERY PLAN SELECT * FROM todos WHERE user_id = 1 AND state = 'pending' ORDER BY id DESC LIMIT 20").all() as { detail: string }[];
    expect(plan.map((row) => row.detail).join('\n')).toMatch(/USING (COVERING )?INDEX todos_user_state/);
    expect(plan.map((row) => row.detail).join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});

describe('todos follow their issue', () => {
  it('closing an issue marks the closer’s pending todos about it done, not the others’', async () => {
    const issue = await newIssue({ title: 'Close me', description: `@${developer.username} @${reporter.username}` });
    const closed = await site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', as: developer.token, body: { state_event: 'close' } });
    expect(closed.status, closed.text).toBe(200);
    expect(await todosAbout(developer, issue)).toEqual([]);
    expect((await todosAbout(developer, issue, '?state=done')).length).toBe(1);
    expect((await todosAbout(reporter, issue)).length).toBe(1);
  });

  it('an award emoji on the issue marks only the awarder’s pending todos about it done', async () => {
    const issue = await newIssue({ title: 'Award me', description: `@${developer.username} @${reporter.username}` });
    const award = await site.api(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { method: 'POST', as: developer.token, body: { name: 'thumbsup' } });
    expect(award.status, award.text).toBe(201);
    expect(await todosAbout(developer, issue)).toEqual([]);
    expect((await todosAbout(reporter, issue)).length).toBe(1);
  });

  it('deleting an issue deletes its todos', async () => {
    const issue = await newIssue({ title: 'Delete me', assignee_ids: [reporter.id] });
    expect((await todosAbout(reporter, issue)).length).toBe(1);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect(site.site.db.prepare("SELECT count(*) FROM todos WHERE target_type = 'Issue' AND target_id = ?").pluck().get(issue.id)).toBe(0);
  });
});
