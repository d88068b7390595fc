import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Discussions on issues (issue 14, item 4): threads and single notes with GitLab's Discussion
 * entity, replies (a single note becomes a thread), reading and editing a reply, with the
 * 400/401/403/404 rows.
 */
let site: TestSite;
let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: any;
let issue: any;

const base = () => `/projects/${project.id}/issues/${issue.iid}/discussions`;

beforeAll(async () => {
  site = await startSite();
  [owner, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'public' }, owner.token);
  await addMember(site, 'projects', project.id, guest, 10, owner.token);
  issue = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'Talk' }, as: owner.token })).body;
});
afterAll(() => site.stop());

describe('discussions', () => {
  it('starts a thread (201 Discussion), replies to it and lists threads and single notes oldest first', async () => {
    const single = (await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'plain' }, as: owner.token })).body;
    const started = await site.api(base(), { method: 'POST', body: { body: 'thread' }, as: guest.token });
    expect(started.status).toBe(201);
    expect(started.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{40}$/),
      individual_note: false,
      notes: [expect.objectContaining({ type: 'DiscussionNote', body: 'thread', author: expect.objectContaining({ id: guest.id }), system: false, noteable_iid: issue.iid })],
    });
    const reply = await site.api(`${base()}/${started.body.id}/notes`, { method: 'POST', body: { body: 'reply' }, as: outsider.token });
    expect(reply).toMatchObject({ status: 201, body: { type: 'DiscussionNote', body: 'reply', author: { id: outsider.id } } });
    const list = await site.api(base(), { as: outsider.token });
    expect(list.headers['x-total']).toBe('2');
    expect(list.body.map((d: any) => [d.individual_note, d.notes.map((n: any) => n.body)])).toEqual([
      [true, ['plain']],
      [false, ['thread', 'reply']],
    ]);
    expect(list.body[0].notes[0]).toMatchObject({ id: single.id, type: null });
    const paged = await site.api(`${base()}?per_page=1&page=2`, { as: owner.token });
    expect(paged.body.map((d: any) => d.id)).toEqual([started.body.id]);
    const one = await site.api(`${base()}/${started.body.id}`, { as: owner.token });
    expect(one.body).toMatchObject({ id: started.body.id, individual_note: false, notes: [{ body: 'thread' }, { body: 'reply' }] });
    const notes = await site.api(`${base()}/${started.body.id}/notes`, { as: owner.token });
    expect(notes.body.map((n: any) => n.body)).toEqual(['thread', 'reply']);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token })).body.user_notes_count).toBe(3);
  });

  it('turns a single note into a thread when someone replies', async () => {
    const note = (await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'lonely' }, as: owner.token })).body;
    const discussion = (await site.api(base(), { as: owner.token })).body.find((d: any) => d.notes[0].id === note.id);
    expect(discussion.individual_note).toBe(true);
    expect((await site.api(`${base()}/${discussion.id}/notes`, { method: 'POST', body: { body: 'not anymore' }, as: guest.token })).status).toBe(201);
    const after = (await site.api(`${base()}/${discussion.id}`, { as: owner.token })).body;
    expect(after).toMatchObject({ individual_note: false, notes: [{ id: note.id, type: 'DiscussionNote' }, { body: 'not anymore', type: 'DiscussionNote' }] });
  });

  it('reads, edits and deletes a reply through the discussion path, by its author only', async () => {
    const started = (await site.api(base(), { method: 'POST', body: { body: 'edit me' }, as: guest.token })).body;
    const noteId = started.notes[0].id;
    const path = `${base()}/${started.id}/notes/${noteId}`;
    expect(await site.api(path, { as: outsider.token })).toMatchObject({ status: 200, body: { id: noteId, body: 'edit me' } });
    expect(await site.api(path, { method: 'PUT', body: { body: 'hijack' }, as: outsider.token })).toMatchObject({ status: 403 });
    expect(await site.api(path, { method: 'PUT', body: { body: 'edited' }, as: guest.token })).toMatchObject({ status: 200, body: { body: 'edited' } });
    expect((await site.api(path, { method: 'DELETE', as: guest.token })).status).toBe(204);
    expect(await site.api(`${base()}/${started.id}`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
  });

  it('answers 400, 401, 403 (locked) and 404', async () => {
    expect(await site.api(base(), { method: 'POST', body: {}, as: guest.token })).toMatchObject({ status: 400, body: { message: 'body is missing' } });
    expect(await site.api(base(), { as: null })).toMatchObject({ status: 401 });
    expect(await site.api(`${base()}/${'0'.repeat(40)}`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await site.api(`${base()}/${'0'.repeat(40)}/notes`, { method: 'POST', body: { body: 'x' }, as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Discussion Not Found' } });
    expect(await site.api(`${base()}/${'0'.repeat(40)}/notes`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Notes Not Found' } });
    expect(await site.api(`/projects/${project.id}/issues/999/discussions`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
    const locked = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'Locked', discussion_locked: true }, as: owner.token })).body;
    const lockedBase = `/projects/${project.id}/issues/${locked.iid}/discussions`;
    expect(await site.api(lockedBase, { method: 'POST', body: { body: 'x' }, as: outsider.token })).toMatchObject({ status: 403 });
    const thread = (await site.api(lockedBase, { method: 'POST', body: { body: 'members only' }, as: guest.token })).body;
    expect(await site.api(`${lockedBase}/${thread.id}/notes`, { method: 'POST', body: { body: 'x' }, as: outsider.token })).toMatchObject({ status: 403 });
    const secret = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'Secret', confidential: true }, as: owner.token })).body;
    expect(await site.api(`/projects/${project.id}/issues/${secret.iid}/discussions`, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Issue Not Found' } });
  });
});

describe('resolving a note of an issue', () => {
  it('is refused: 400 exactly one of body and resolved, 403 for who may not resolve, 400 not resolvable for the rest', async () => {
    const started = (await site.api(base(), { method: 'POST', body: { body: 'resolve me?' }, as: guest.token })).body;
    const path = `${base()}/${started.id}/notes/${started.notes[0].id}`;
    expect(await site.api(path, { method: 'PUT', body: {}, as: guest.token })).toMatchObject({
      status: 400,
      body: { message: 'body, resolved are missing, exactly one parameter must be provided' },
    });
    expect(await site.api(path, { method: 'PUT', body: { body: 'x', resolved: true }, as: guest.token })).toMatchObject({ status: 400, body: { message: 'body, resolved are mutually exclusive' } });
    expect(await site.api(path, { method: 'PUT', body: { resolved: 'maybe' }, as: guest.token })).toMatchObject({ status: 400, body: { message: 'resolved is invalid' } });
    expect(await site.api(path, { method: 'PUT', body: { resolved: true }, as: outsider.token })).toMatchObject({ status: 403 });
    expect(await site.api(path, { method: 'PUT', body: { resolved: true }, as: guest.token })).toMatchObject({
      status: 400,
      body: { message: '400 (Bad request) "Note is not resolvable" not given' },
    });
    expect(started.notes[0].resolvable).toBe(false);
    expect(started.notes[0]).not.toHaveProperty('resolved');
  });
});
