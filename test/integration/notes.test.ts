import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Notes on issues (issue 14, item 4): GitLab's Note entity, order_by and sort, edits by the author
 * and by maintainers, user_notes_count (system notes excluded), a locked discussion (members only),
 * confidential issues (404), with the 400/401/403/404 rows.
 */
let site: TestSite;
let owner: TestUser;
let maintainer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: any;
let publicProject: any;

async function newIssue(projectId: number, body: Record<string, unknown>, as = owner.token) {
  const response = await site.api(`/projects/${projectId}/issues`, { method: 'POST', body, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function newNote(projectId: number, iid: number, body: string, as = owner.token) {
  const response = await site.api(`/projects/${projectId}/issues/${iid}/notes`, { method: 'POST', body: { body }, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

beforeAll(async () => {
  site = await startSite();
  [owner, maintainer, reporter, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'private' }, owner.token);
  publicProject = await createProject(site, { visibility: 'public' }, owner.token);
  for (const p of [project, publicProject]) {
    await addMember(site, 'projects', p.id, maintainer, 40, owner.token);
    await addMember(site, 'projects', p.id, reporter, 20, owner.token);
    await addMember(site, 'projects', p.id, guest, 10, owner.token);
  }
});
afterAll(() => site.stop());

describe('notes on an issue', () => {
  it('answers 201 with the Note entity, counts user notes on the issue and moves its updated_at', async () => {
    const issue = await newIssue(project.id, { title: 'Commented' });
    const response = await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'First!' }, as: guest.token });
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.body).toEqual({
      id: expect.any(Number),
      type: null,
      body: 'First!',
      attachment: null,
      author: expect.objectContaining({ id: guest.id, username: guest.username, state: 'active' }),
      created_at: expect.any(String),
      updated_at: response.body.created_at,
      system: false,
      noteable_id: issue.id,
      noteable_type: 'Issue',
      resolvable: false,
      confidential: false,
      noteable_iid: issue.iid,
      commands_changes: {},
    });
    const after = (await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token })).body;
    expect(after.user_notes_count).toBe(1);
    expect(after.updated_at >= response.body.created_at).toBe(true);
    const one = await site.api(`/projects/${project.id}/issues/${issue.iid}/notes/${response.body.id}`, { as: reporter.token });
    expect(one).toMatchObject({ status: 200, body: { id: response.body.id, body: 'First!' } });
    const events = (await site.api(`/projects/${project.id}/events?action=commented`, { as: owner.token })).body;
    expect(events[0]).toMatchObject({ action_name: 'commented on', target_type: 'Note', target_id: response.body.id, note: { body: 'First!' } });
  });

  it('lists newest first by default, with order_by and sort, paged', async () => {
    const issue = await newIssue(project.id, { title: 'Ordered' });
    const a = await newNote(project.id, issue.iid, 'a');
    const b = await newNote(project.id, issue.iid, 'b');
    const c = await newNote(project.id, issue.iid, 'c');
    await site.api(`/projects/${project.id}/issues/${issue.iid}/notes/${a.id}`, { method: 'PUT', body: { body: 'a2' }, as: owner.token });
    const list = (query: string) => site.api(`/projects/${project.id}/issues/${issue.iid}/notes${query}`, { as: owner.token });
    expect((await list('')).body.map((n: any) => n.id)).toEqual([c.id, b.id, a.id]);
    expect((await list('?sort=asc')).body.map((n: any) => n.id)).toEqual([a.id, b.id, c.id]);
    expect((await list('?order_by=updated_at')).body.map((n: any) => n.id)).toEqual([a.id, c.id, b.id]);
    const paged = await list('?per_page=2&page=2&sort=asc');
    expect(paged.body.map((n: any) => n.id)).toEqual([c.id]);
    expect(paged.headers['x-total']).toBe('3');
    expect(await list('?order_by=title')).toMatchObject({ status: 400, body: { message: 'order_by does not have a valid value' } });
    expect(await list('?sort=up')).toMatchObject({ status: 400, body: { message: 'sort does not have a valid value' } });
  });

  it('lets the author and maintainers edit and delete a note, not other members (403)', async () => {
    const issue = await newIssue(project.id, { title: 'Edited' });
    const note = await newNote(project.id, issue.iid, 'by guest', guest.token);
    const path = `/projects/${project.id}/issues/${issue.iid}/notes/${note.id}`;
    expect(await site.api(path, { method: 'PUT', body: { body: 'by reporter' }, as: reporter.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await site.api(path, { method: 'DELETE', as: reporter.token })).toMatchObject({ status: 403 });
    const edited = await site.api(path, { method: 'PUT', body: { body: 'edited' }, as: guest.token });
    expect(edited).toMatchObject({ status: 200, body: { id: note.id, body: 'edited', author: { id: guest.id } } });
    expect(edited.body.updated_at >= note.updated_at).toBe(true);
    expect(await site.api(path, { method: 'PUT', body: { body: 'moderated' }, as: maintainer.token })).toMatchObject({ status: 200, body: { body: 'moderated' } });
    expect(await site.api(path, { method: 'PUT', body: {}, as: guest.token })).toMatchObject({ status: 400, body: { message: 'body is missing' } });
    expect(await site.api(path, { method: 'PUT', body: { body: '  ' }, as: guest.token })).toMatchObject({
      status: 400,
      body: { message: `400 (Bad request) "Note {:note=>["can't be blank"]}" not given` },
    });
    expect((await site.api(path, { method: 'DELETE', as: guest.token })).status).toBe(204);
    expect(await site.api(path, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await site.api(path, { method: 'DELETE', as: maintainer.token })).toMatchObject({ status: 404 });
  });

  it('refuses bad input (400), anonymous callers (401), unknown issues and notes (404)', async () => {
    const issue = await newIssue(publicProject.id, { title: 'Public' });
    const base = `/projects/${publicProject.id}/issues/${issue.iid}/notes`;
    expect(await site.api(base, { method: 'POST', body: {}, as: guest.token })).toMatchObject({ status: 400, body: { message: 'body is missing' } });
    expect(await site.api(base, { method: 'POST', body: { body: ' ' }, as: guest.token })).toMatchObject({ status: 400 });
    expect(await site.api(base, { method: 'POST', body: { body: 'x'.repeat(1_000_001) }, as: guest.token })).toMatchObject({
      status: 400,
      body: { message: `400 (Bad request) "Note {:note=>["is too long (maximum is 1000000 characters)"]}" not given` },
    });
    expect(await site.api(base, { method: 'POST', body: { body: 'hi' }, as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await site.api(base, { as: null })).toMatchObject({ status: 401 });
    expect(await site.api(`/projects/${publicProject.id}/issues/999/notes`, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect(await site.api(`/projects/${publicProject.id}/issues/abc/notes`, { as: guest.token })).toMatchObject({ status: 400, body: { message: 'issue_iid is invalid' } });
    expect(await site.api(`${base}/abc`, { as: guest.token })).toMatchObject({ status: 400, body: { message: 'note_id is invalid' } });
    expect(await site.api(`${base}/99999`, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await site.api(`/projects/${project.id}/issues/1/notes`, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // Anyone signed in may comment on a public project's issue.
    expect((await site.api(base, { method: 'POST', body: { body: 'drive-by' }, as: outsider.token })).status).toBe(201);
  });

  it('keeps a note on another issue out of reach (404)', async () => {
    const first = await newIssue(project.id, { title: 'One' });
    const second = await newIssue(project.id, { title: 'Two' });
    const note = await newNote(project.id, first.iid, 'on one');
    expect(await site.api(`/projects/${project.id}/issues/${second.iid}/notes/${note.id}`, { as: owner.token })).toMatchObject({ status: 404 });
    expect(await site.api(`/projects/${project.id}/issues/${second.iid}/notes/${note.id}`, { method: 'PUT', body: { body: 'x' }, as: owner.token })).toMatchObject({ status: 404 });
  });

  it('backdates a note for owners only', async () => {
    const issue = await newIssue(project.id, { title: 'Backdated' });
    const old = await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'old', created_at: '2020-01-02T03:04:05Z' }, as: owner.token });
    expect(old.body).toMatchObject({ created_at: '2020-01-02T03:04:05.000Z', updated_at: '2020-01-02T03:04:05.000Z' });
    const ignored = await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'now', created_at: '2020-01-02T03:04:05Z' }, as: guest.token });
    expect(ignored.body.created_at > '2025').toBe(true);
    expect(await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'x', created_at: 'yesterday' }, as: owner.token })).toMatchObject({
      status: 400,
      body: { message: 'created_at is invalid' },
    });
  });
});

describe('a locked discussion', () => {
  it('takes comments from project members only (403 for others), and edits likewise', async () => {
    const issue = await newIssue(publicProject.id, { title: 'Heated', discussion_locked: true });
    expect(issue.discussion_locked).toBe(true);
    const base = `/projects/${publicProject.id}/issues/${issue.iid}/notes`;
    expect(await site.api(base, { method: 'POST', body: { body: 'me too' }, as: outsider.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await site.api(base, { method: 'POST', body: { body: 'member' }, as: guest.token })).status).toBe(201);
    expect((await site.api(base, { as: outsider.token })).status).toBe(200);
    const unlocked = await site.api(`/projects/${publicProject.id}/issues/${issue.iid}`, { method: 'PUT', body: { discussion_locked: false }, as: owner.token });
    expect(unlocked.body.discussion_locked).toBe(false);
    const note = await newNote(publicProject.id, issue.iid, 'outsider speaks', outsider.token);
    await site.api(`/projects/${publicProject.id}/issues/${issue.iid}`, { method: 'PUT', body: { discussion_locked: true }, as: owner.token });
    expect(await site.api(`${base}/${note.id}`, { method: 'PUT', body: { body: 'edit' }, as: outsider.token })).toMatchObject({ status: 403 });
    expect(await site.api(`${base}/${note.id}`, { method: 'DELETE', as: outsider.token })).toMatchObject({ status: 403 });
  });
});

describe('a confidential issue', () => {
  it('hides its notes from those who may not read it (404) and shows them to its author and reporters', async () => {
    const issue = await newIssue(publicProject.id, { title: 'Secret', confidential: true }, owner.token);
    const base = `/projects/${publicProject.id}/issues/${issue.iid}/notes`;
    await newNote(publicProject.id, issue.iid, 'hush', owner.token);
    expect(await site.api(base, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    expect(await site.api(base, { as: guest.token })).toMatchObject({ status: 404 });
    expect(await site.api(base, { method: 'POST', body: { body: 'peek' }, as: guest.token })).toMatchObject({ status: 404 });
    expect((await site.api(base, { as: reporter.token })).body.map((n: any) => n.body)).toContain('hush');
  });
});

describe('an archived project', () => {
  it('takes no comments, edits of them or award emoji (403 and 404 as GitLab), and still shows them', async () => {
    const archived = await createProject(site, { visibility: 'private' }, owner.token);
    const issue = await newIssue(archived.id, { title: 'Old' });
    const note = await newNote(archived.id, issue.iid, 'before');
    expect((await site.api(`/projects/${archived.id}/archive`, { method: 'POST', body: {}, as: owner.token })).status).toBe(201);
    const base = `/projects/${archived.id}/issues/${issue.iid}`;
    expect(await site.api(`${base}/notes`, { method: 'POST', body: { body: 'after' }, as: owner.token })).toMatchObject({ status: 403 });
    expect(await site.api(`${base}/discussions`, { method: 'POST', body: { body: 'after' }, as: owner.token })).toMatchObject({ status: 403 });
    expect(await site.api(`${base}/notes/${note.id}`, { method: 'PUT', body: { body: 'edit' }, as: owner.token })).toMatchObject({ status: 403 });
    expect(await site.api(`${base}/notes/${note.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({ status: 403 });
    expect(await site.api(`${base}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Award Emoji Not Found' } });
    expect((await site.api(`${base}/notes`, { as: owner.token })).body.map((n: any) => n.body)).toEqual(['before']);
  });
});
