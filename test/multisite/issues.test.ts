import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * The tracker replicates (issue 14, item 10): issues with labels, a milestone, assignees, todos,
 * notes, discussions and award emoji written through the primary, or through a secondary that
 * forwards the write, read the same on the secondary; a deleted user's issues show the ghost user there, or are gone with hard_delete.
 */
describe('multi-site issues', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  /** Waits until the secondary answers `path` as the primary does (status and JSON), and returns the primary's answer. */
  const sameOnBoth = (path: string, as?: string | null, status = 200) => readsTheSame(primary, secondary, path, status, { as });

  async function newUser(site: SiteProcess, prefix: string) {
    const suffix = randomUUID().slice(0, 8);
    const user = await site.api('/users', { method: 'POST', body: { username: `${prefix}${suffix}`, email: `${prefix}${suffix}@example.com`, name: prefix, password: 'password123' } });
    expect(user.status, user.text).toBe(201);
    const token = await site.api(`/users/${user.body.id}/impersonation_tokens`, { method: 'POST', body: { name: 'issues', scopes: ['api'] } });
    expect(token.status, token.text).toBe(201);
    return { id: user.body.id as number, username: user.body.username as string, token: token.body.token as string };
  }

  it('an issue with labels and a milestone, written through either site, reads the same on the secondary', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await primary.api('/projects', { method: 'POST', body: { name: `issues-${suffix}`, visibility: 'private' } });
    expect(project.status).toBe(201);
    const id = project.body.id;
    const dev = await newUser(primary, 'dev');
    expect((await primary.api(`/projects/${id}/members`, { method: 'POST', body: { user_id: dev.id, access_level: 30 } })).status).toBe(201);
    const label = await primary.api(`/projects/${id}/labels`, { method: 'POST', body: { name: 'bug', color: '#d9534f' } });
    expect(label.status, label.text).toBe(201);
    const milestone = await primary.api(`/projects/${id}/milestones`, { method: 'POST', body: { title: 'v1', due_date: '2031-01-01' } });
    expect(milestone.status, milestone.text).toBe(201);

    const viaPrimary = await primary.api(`/projects/${id}/issues`, {
      method: 'POST',
      body: { title: 'Written on the primary', description: `cc @${dev.username}`, labels: 'bug,new-label', milestone_id: milestone.body.id, assignee_ids: [dev.id] },
    });
    expect(viaPrimary.status, viaPrimary.text).toBe(201);
    const viaSecondary = await secondary.api(`/projects/${id}/issues`, {
      method: 'POST',
      body: { title: 'Written through the secondary', labels: 'bug', milestone_id: milestone.body.id, confidential: true },
    });
    expect(viaSecondary.status, viaSecondary.text).toBe(201);
    expect(viaSecondary.body).toMatchObject({ iid: 2, labels: ['bug'], milestone: { id: milestone.body.id }, confidential: true });
    const edited = await secondary.api(`/projects/${id}/issues/2`, { method: 'PUT', body: { state_event: 'close', add_labels: 'later' } });
    expect(edited.status, edited.text).toBe(200);

    const first = await sameOnBoth(`/projects/${id}/issues/1`);
    expect(first.body).toMatchObject({ title: 'Written on the primary', labels: ['bug', 'new-label'], milestone: { title: 'v1' }, assignees: [{ id: dev.id }] });
    const second = await sameOnBoth(`/projects/${id}/issues/2`);
    expect(second.body).toMatchObject({ state: 'closed', labels: ['bug', 'later'], closed_by: { username: 'root' } });
    await sameOnBoth(`/projects/${id}/issues?labels=bug`);
    await sameOnBoth(`/projects/${id}/labels?with_counts=true`);
    await sameOnBoth(`/projects/${id}/milestones/${milestone.body.id}/issues`);
    // A conditional delete sent to the secondary keeps its If-Unmodified-Since on the way to the primary.
    const stale = await secondary.api(`/projects/${id}/issues/2`, { method: 'DELETE', headers: { 'if-unmodified-since': new Date(Date.now() - 3_600_000).toUTCString() } });
    expect(stale.status, stale.text).toBe(412);
    expect((await primary.api(`/projects/${id}/issues/2`)).status).toBe(200);
    const guest = await newUser(primary, 'guest');
    expect((await primary.api(`/projects/${id}/members`, { method: 'POST', body: { user_id: guest.id, access_level: 10 } })).status).toBe(201);
    await sameOnBoth(`/projects/${id}/issues/2`, guest.token, 404);
    const todos = await sameOnBoth('/todos', dev.token);
    expect(todos.body.map((todo: any) => [todo.action_name, todo.target.iid])).toEqual([['assigned', 1]]);
    const events = await sameOnBoth(`/projects/${id}/events?target_type=issue`);
    expect(events.body.map((event: any) => [event.action_name, event.target_iid])).toEqual([
      ['closed', 2],
      ['opened', 2],
      ['opened', 1],
    ]);
    expect((await sameOnBoth(`/projects/${id}`)).body.open_issues_count).toBe(1);

    // Comments, a reply, award emoji on the issue and on a note, written through either site.
    const note = await primary.api(`/projects/${id}/issues/1/notes`, { method: 'POST', as: dev.token, body: { body: 'From the primary' } });
    expect(note.status, note.text).toBe(201);
    const thread = await secondary.api(`/projects/${id}/issues/1/discussions`, { method: 'POST', body: { body: 'A thread through the secondary' } });
    expect(thread.status, thread.text).toBe(201);
    const reply = await secondary.api(`/projects/${id}/issues/1/discussions/${thread.body.id}/notes`, { method: 'POST', as: dev.token, body: { body: 'A reply' } });
    expect(reply.status, reply.text).toBe(201);
    expect((await secondary.api(`/projects/${id}/issues/1/award_emoji`, { method: 'POST', as: dev.token, body: { name: 'thumbsup' } })).status).toBe(201);
    expect((await primary.api(`/projects/${id}/issues/1/notes/${note.body.id}/award_emoji`, { method: 'POST', body: { name: 'tada' } })).status).toBe(201);
    const discussions = await sameOnBoth(`/projects/${id}/issues/1/discussions`);
    expect(discussions.body.flatMap((discussion: any) => discussion.notes.filter((n: any) => !n.system).map((n: any) => n.body))).toEqual(['From the primary', 'A thread through the secondary', 'A reply']);
    await sameOnBoth(`/projects/${id}/issues/1/notes?sort=asc`);
    expect((await sameOnBoth(`/projects/${id}/issues/1/award_emoji`)).body.map((award: any) => award.name)).toEqual(['thumbsup']);
    expect((await sameOnBoth(`/projects/${id}/issues/1/notes/${note.body.id}/award_emoji`)).body.map((award: any) => award.name)).toEqual(['tada']);
    expect((await sameOnBoth(`/projects/${id}/issues/1`)).body).toMatchObject({ user_notes_count: 3, upvotes: 1 });
    await sameOnBoth(`/projects/${id}/issues/1/resource_label_events`);
  });

  it('a deleted user’s issues show the ghost user on the secondary, and are gone there with hard_delete', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await primary.api('/projects', { method: 'POST', body: { name: `ghost-${suffix}`, visibility: 'public' } });
    const id = project.body.id;
    const [kept, gone] = [await newUser(primary, 'kept'), await newUser(primary, 'gone')];
    for (const user of [kept, gone]) expect((await primary.api(`/projects/${id}/members`, { method: 'POST', body: { user_id: user.id, access_level: 30 } })).status).toBe(201);
    const keptIssue = await secondary.api(`/projects/${id}/issues`, { method: 'POST', as: kept.token, body: { title: 'Stays', labels: 'x' } });
    const goneIssue = await secondary.api(`/projects/${id}/issues`, { method: 'POST', as: gone.token, body: { title: 'Goes' } });
    expect([keptIssue.status, goneIssue.status]).toEqual([201, 201]);

    expect((await secondary.api(`/users/${kept.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await secondary.api(`/users/${gone.id}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
    const stays = await waitFor(
      async () => {
        const shown = await sameOnBoth(`/projects/${id}/issues/${keptIssue.body.iid}`, null);
        return shown.body.author.username.startsWith('ghost') && shown;
      },
      { timeoutMs: 20_000, message: 'the issue under the ghost user on both sites' },
    );
    expect(stays.body).toMatchObject({ title: 'Stays', labels: ['x'], author: { state: 'blocked', name: 'Ghost User' } });
    await sameOnBoth(`/projects/${id}/issues/${goneIssue.body.iid}`, null, 404);
    const events = await sameOnBoth(`/projects/${id}/events?target_type=issue`, null);
    expect(events.body.map((event: any) => [event.target_title, event.author_username])).toEqual([['Stays', stays.body.author.username]]);
    expect((await sameOnBoth(`/projects/${id}`)).body.open_issues_count).toBe(1);
  });
});
