import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Merge requests with the tracker's code (issue 15, items 8-9): notes, threaded discussions with
 * diff notes on a position that resolve, award emoji, resource events and system notes; the
 * merge_requests_events and note hooks with GitLab's payloads; events rows; the ghost user and
 * hard_delete covering merge requests.
 */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let guest: TestUser;
let project: any;
let hooks: HookReceiver;

async function commit(branch: string, files: Record<string, string>, start?: string) {
  const actions = Object.entries(files).map(([file_path, content]) => ({ action: 'create', file_path, content }));
  const response = await site.api(`/projects/${project.id}/repository/commits`, {
    method: 'POST',
    body: { branch, commit_message: `add ${Object.keys(files).join(', ')}`, actions, ...(start ? { start_branch: start } : {}) },
    as: owner.token,
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function newMergeRequest(branch: string, body: Record<string, unknown> = {}, as = owner.token) {
  await commit(branch, { [`${branch}.txt`]: `${branch}\nline two\n` }, 'master');
  const response = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: branch, target_branch: 'master', title: `MR ${branch}`, ...body }, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const deliveriesTo = (path: string) => hooks.deliveriesTo(path);

beforeAll(async () => {
  hooks = await startHookReceiver();
  site = await startSite();
  [owner, developer, guest] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { name: 'mr-notes', visibility: 'public' }, owner.token);
  await addMember(site, 'projects', project.id, developer, 30, owner.token);
  const hook = (path: string, flags: Record<string, boolean>) =>
    site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: `${hooks.origin}${path}`, push_events: false, ...flags } });
  expect((await hook('/mr', { merge_requests_events: true })).status).toBe(201);
  expect((await hook('/notes', { note_events: true })).status).toBe(201);
  await commit('master', { 'README.md': 'hello\n' });
});
afterAll(async () => {
  await site.stop();
  await hooks.stop();
});

describe('notes, discussions and award emoji on merge requests', () => {
  it('comments (user_notes_count), threads, diff notes on a position that resolve, and award emoji', async () => {
    const mr = await newMergeRequest('notes');
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const note = await site.api(`${url}/notes`, { method: 'POST', body: { body: 'Looks good' }, as: guest.token });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({ body: 'Looks good', noteable_type: 'MergeRequest', noteable_id: mr.id, noteable_iid: mr.iid, author: { id: guest.id } });
    expect((await site.api(url, { as: owner.token })).body.user_notes_count).toBe(1);

    const thread = await site.api(`${url}/discussions`, { method: 'POST', body: { body: 'General thread' }, as: developer.token });
    expect(thread.status).toBe(201);
    expect(thread.body.notes[0]).toMatchObject({ type: 'DiscussionNote', resolvable: true, resolved: false });

    const position = { base_sha: mr.diff_refs.base_sha, start_sha: mr.diff_refs.start_sha, head_sha: mr.diff_refs.head_sha, position_type: 'text', new_path: 'notes.txt', old_path: 'notes.txt', new_line: 2 };
    const diffThread = await site.api(`${url}/discussions`, { method: 'POST', body: { body: 'On line two', position }, as: developer.token });
    expect(diffThread.status, diffThread.text).toBe(201);
    expect(diffThread.body.notes[0]).toMatchObject({ type: 'DiffNote', resolvable: true, resolved: false, position: { new_path: 'notes.txt', new_line: 2, head_sha: mr.diff_refs.head_sha } });
    const reply = await site.api(`${url}/discussions/${diffThread.body.id}/notes`, { method: 'POST', body: { body: 'Agreed' }, as: owner.token });
    expect(reply.body).toMatchObject({ type: 'DiffNote', resolvable: true, position: { new_line: 2 } });
    const badPosition = await site.api(`${url}/discussions`, { method: 'POST', body: { body: 'x', position: { position_type: 'text' } }, as: developer.token });
    expect(badPosition).toMatchObject({ status: 400, body: { message: 'position[base_sha] is missing' } });

    const resolvedOne = await site.api(`${url}/discussions/${diffThread.body.id}/notes/${diffThread.body.notes[0].id}?resolved=true`, { method: 'PUT', as: developer.token });
    expect(resolvedOne.body).toMatchObject({ resolved: true, resolved_by: { id: developer.id } });
    const resolvedAll = await site.api(`${url}/discussions/${diffThread.body.id}`, { method: 'PUT', body: { resolved: true }, as: owner.token });
    expect(resolvedAll.status).toBe(200);
    expect(resolvedAll.body.notes.every((n: any) => n.resolved)).toBe(true);
    expect((await site.api(`${url}/discussions/${diffThread.body.id}`, { method: 'PUT', body: { resolved: true }, as: guest.token })).status).toBe(403);
    const discussions = await site.api(`${url}/discussions`, { as: guest.token });
    expect(discussions.body.map((d: any) => d.notes.length)).toEqual(expect.arrayContaining([1, 1, 2]));

    const award = await site.api(`${url}/award_emoji`, { method: 'POST', body: { name: 'thumbsup' }, as: guest.token });
    expect(award).toMatchObject({ status: 201, body: { name: 'thumbsup', awardable_type: 'MergeRequest', awardable_id: mr.id } });
    expect((await site.api(url, { as: owner.token })).body.upvotes).toBe(1);
    expect((await site.api(`${url}/notes/${note.body.id}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: developer.token })).status).toBe(201);
    expect((await site.api(`/projects/${project.id}/merge_requests?my_reaction_emoji=thumbsup`, { as: guest.token })).body.map((m: any) => m.iid)).toEqual([mr.iid]);
    expect((await site.api(`${url}/notes`, { as: null })).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/merge_requests/999/notes`, { as: owner.token })).body).toEqual({ message: '404 Merge Request Not Found' });
  });

  it('locks the discussion to members, and writes system notes and resource events for edits', async () => {
    const label = await site.api(`/projects/${project.id}/labels`, { method: 'POST', body: { name: 'review', color: '#ff0000' }, as: owner.token });
    const milestone = await site.api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'M1' }, as: owner.token });
    const mr = await newMergeRequest('history');
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    await site.api(url, { method: 'PUT', body: { title: 'WIP: History', labels: 'review', milestone_id: milestone.body.id, assignee_id: developer.id, discussion_locked: true }, as: owner.token });
    expect((await site.api(`${url}/notes`, { method: 'POST', body: { body: 'outsider' }, as: guest.token })).status).toBe(403);
    expect((await site.api(`${url}/notes`, { method: 'POST', body: { body: 'member' }, as: developer.token })).status).toBe(201);
    await site.api(url, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    await site.api(url, { method: 'PUT', body: { state_event: 'reopen' }, as: owner.token });

    const notes = await site.api(`${url}/notes?sort=asc&per_page=100`, { as: owner.token });
    const system = notes.body.filter((n: any) => n.system).map((n: any) => n.body);
    expect(system).toEqual(
      expect.arrayContaining([
        'changed title from **{-MR h-}istory** to **{+WIP: H+}istory**',
        'marked as a **Work In Progress**',
        'locked this merge request',
        `changed milestone to %${milestone.body.id}`,
        'added ~' + label.body.id + ' label',
        `assigned to @${developer.username}`,
        'closed',
        'reopened',
      ]),
    );
    const labelEvents = await site.api(`${url}/resource_label_events`, { as: owner.token });
    expect(labelEvents.body).toEqual([expect.objectContaining({ action: 'add', resource_type: 'MergeRequest', resource_id: mr.id, label: expect.objectContaining({ name: 'review' }) })]);
    const stateEvents = await site.api(`${url}/resource_state_events`, { as: owner.token });
    expect(stateEvents.body.map((e: any) => e.state)).toEqual(['closed', 'reopened']);
    const milestoneEvents = await site.api(`${url}/resource_milestone_events`, { as: owner.token });
    expect(milestoneEvents.body).toEqual([expect.objectContaining({ action: 'add', milestone: expect.objectContaining({ title: 'M1' }) })]);
    expect((await site.api(`${url}/resource_state_events/${stateEvents.body[0].id}`, { as: owner.token })).body.state).toBe('closed');

    // A push records "added 1 commit".
    await commit('history', { 'more.txt': 'more\n' });
    const after = await site.api(`${url}/notes?per_page=1`, { as: owner.token });
    expect(after.body[0].body).toMatch(/^added 1 commit\n\n\* [0-9a-f]{8} - add more.txt$/);
  });
});

describe('time tracking', () => {
  it('estimates and spends time with system notes, resets both, and refuses guests (403) and bad durations (400)', async () => {
    const mr = await newMergeRequest('timed');
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await site.api(`${url}/time_estimate`, { method: 'POST', body: { duration: '3h30m' }, as: developer.token })).body).toMatchObject({ time_estimate: 12600, human_time_estimate: '3h 30m' });
    expect((await site.api(`${url}/add_spent_time`, { method: 'POST', body: { duration: '1h' }, as: developer.token })).body).toMatchObject({ total_time_spent: 3600 });
    expect((await site.api(`${url}/time_stats`, { as: guest.token })).body).toMatchObject({ time_estimate: 12600, total_time_spent: 3600 });
    expect((await site.api(url, { as: guest.token })).body.time_stats).toMatchObject({ human_total_time_spent: '1h' });
    expect((await site.api(`${url}/add_spent_time`, { method: 'POST', body: { duration: '1h' }, as: guest.token })).status).toBe(403);
    expect((await site.api(`${url}/add_spent_time`, { method: 'POST', body: { duration: 'soon' }, as: developer.token })).status).toBe(400);
    expect((await site.api(`${url}/add_spent_time`, { method: 'POST', body: {}, as: developer.token })).status).toBe(400);
    // 200 on the resets and the estimate (GitLab's `status :ok`), 201 on add_spent_time.
    expect(await site.api(`${url}/reset_spent_time`, { method: 'POST', as: developer.token })).toMatchObject({ status: 200, body: { total_time_spent: 0 } });
    expect(await site.api(`${url}/reset_time_estimate`, { method: 'POST', as: developer.token })).toMatchObject({ status: 200, body: { time_estimate: 0 } });
    const notes = await site.api(`${url}/notes?sort=asc`, { as: owner.token });
    expect(notes.body.filter((n: any) => n.system).map((n: any) => n.body)).toEqual([
      'changed time estimate to 3h 30m',
      'added 1h of time spent',
      'removed time spent',
      'removed time estimate',
    ]);
  });
});

describe('webhooks and events', () => {
  it('calls merge_requests_events hooks with GitLab payload on open, update, close, reopen and push, and note hooks for comments', async () => {
    const before = deliveriesTo('/mr').length;
    const mr = await newMergeRequest('hooked', { labels: 'hooklabel', assignee_id: developer.id });
    await waitFor(() => deliveriesTo('/mr').length > before, { message: 'open hook' });
    const opened = deliveriesTo('/mr').at(-1)!;
    expect(opened.event).toBe('Merge Request Hook');
    expect(opened.body).toMatchObject({
      object_kind: 'merge_request',
      user: { username: owner.username },
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
      object_attributes: {
        id: mr.id,
        iid: mr.iid,
        action: 'open',
        state: 'opened',
        source_branch: 'hooked',
        target_branch: 'master',
        merge_status: 'unchecked',
        url: `${site.url}/${project.path_with_namespace}/merge_requests/${mr.iid}`,
        work_in_progress: false,
        source: { id: project.id },
        target: { id: project.id },
        assignee_ids: [developer.id],
      },
      labels: [expect.objectContaining({ title: 'hooklabel' })],
      assignee: { username: developer.username },
      repository: { name: project.name },
    });
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    await site.api(url, { method: 'PUT', body: { title: 'Renamed' }, as: owner.token });
    await waitFor(() => deliveriesTo('/mr').some((d) => d.body.object_attributes.action === 'update' && d.body.object_attributes.iid === mr.iid), { message: 'update hook' });
    const updated = deliveriesTo('/mr').find((d) => d.body.object_attributes.action === 'update' && d.body.object_attributes.iid === mr.iid)!;
    expect(updated.body.changes.title).toEqual({ previous: 'MR hooked', current: 'Renamed' });
    const head = await commit('hooked', { 'pushed.txt': 'p\n' });
    await waitFor(() => deliveriesTo('/mr').some((d) => d.body.object_attributes.oldrev && d.body.object_attributes.iid === mr.iid), { message: 'push hook' });
    const pushed = deliveriesTo('/mr').find((d) => d.body.object_attributes.oldrev && d.body.object_attributes.iid === mr.iid)!;
    expect(pushed.body.object_attributes).toMatchObject({ action: 'update', oldrev: mr.sha, last_commit: { id: head.id } });
    await site.api(url, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    await site.api(url, { method: 'PUT', body: { state_event: 'reopen' }, as: owner.token });
    await waitFor(() => deliveriesTo('/mr').some((d) => d.body.object_attributes.action === 'reopen' && d.body.object_attributes.iid === mr.iid), { message: 'reopen hook' });
    expect(deliveriesTo('/mr').some((d) => d.body.object_attributes.action === 'close' && d.body.object_attributes.iid === mr.iid)).toBe(true);

    const note = await site.api(`${url}/notes`, { method: 'POST', body: { body: 'hook me' }, as: developer.token });
    await waitFor(() => deliveriesTo('/notes').some((d) => d.body.object_attributes.id === note.body.id), { message: 'note hook' });
    const noteHook = deliveriesTo('/notes').find((d) => d.body.object_attributes.id === note.body.id)!;
    expect(noteHook.event).toBe('Note Hook');
    expect(noteHook.body).toMatchObject({
      object_kind: 'note',
      object_attributes: { note: 'hook me', noteable_type: 'MergeRequest', url: `${site.url}/${project.path_with_namespace}/merge_requests/${mr.iid}#note_${note.body.id}` },
      merge_request: { id: mr.id, iid: mr.iid, title: 'Renamed' },
    });
  });

  it('announces a merge (what the merge code calls): the merged event, system note, state event and merge hook', async () => {
    const mr = await newMergeRequest('merged-by-code', {}, developer.token);
    const { inTransaction } = await import('../../src/db/connection.js');
    const { findMergeRequestById, updateMergeRequestRow } = await import('../../src/db/tables/merge-requests.js');
    const { findProjectById } = await import('../../src/db/tables/projects.js');
    const { findUserById } = await import('../../src/db/tables/users.js');
    const { announceMergeRequestChange, mergeRequestChange } = await import('../../src/services/merge-requests/changes.js');
    const { db } = site.site;
    inTransaction(db, () => {
      const before = findMergeRequestById(db, mr.id)!;
      updateMergeRequestRow(db, mr.id, { state: 'merged', merged_by_id: owner.id, merged_at: new Date().toISOString(), merge_commit_sha: before.head_sha });
      announceMergeRequestChange(site.site.ctx, mergeRequestChange('merged', findUserById(db, owner.id)!, findProjectById(db, project.id)!, before, findMergeRequestById(db, mr.id)!));
    });
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await site.api(url, { as: owner.token })).body).toMatchObject({ state: 'merged', merged_by: { id: owner.id }, merged_at: expect.any(String) });
    expect((await site.api(`${url}/notes?per_page=1`, { as: owner.token })).body[0]).toMatchObject({ system: true, body: 'merged' });
    expect((await site.api(`${url}/resource_state_events`, { as: owner.token })).body.map((e: any) => e.state)).toEqual(['merged']);
    expect(db.prepare("SELECT action FROM events WHERE target_type = 'MergeRequest' AND target_id = ? ORDER BY id DESC LIMIT 1").get(mr.id)).toEqual({ action: 'merged' });
    await waitFor(() => deliveriesTo('/mr').some((d) => d.body.object_attributes.action === 'merge' && d.body.object_attributes.iid === mr.iid), { message: 'merge hook' });
    expect((await site.api(`/projects/${project.id}/merge_requests?state=merged`, { as: owner.token })).body.map((m: any) => m.iid)).toContain(mr.iid);
  });

  it('records opened, closed and reopened events, shown by the project events list', async () => {
    const mr = await newMergeRequest('evented', {}, developer.token);
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    await site.api(url, { method: 'PUT', body: { state_event: 'close' }, as: developer.token });
    await site.api(url, { method: 'PUT', body: { state_event: 'reopen' }, as: developer.token });
    const events = await site.api(`/projects/${project.id}/events?target_type=merge_request`, { as: owner.token });
    const mine = events.body.filter((e: any) => e.target_id === mr.id).map((e: any) => e.action_name);
    // GitLab names a reopen "opened" in event lists (Event#action_name).
    expect(mine).toEqual(['opened', 'closed', 'opened']);
    expect(site.site.db.prepare("SELECT action FROM events WHERE target_type = 'MergeRequest' AND target_id = ? ORDER BY id").all(mr.id)).toEqual([
      { action: 'created' },
      { action: 'closed' },
      { action: 'reopened' },
    ]);
  });
});

describe('deleted users', () => {
  it('hands a deleted author\'s merge requests to the ghost user, and hard_delete removes them', async () => {
    const [soft, hard] = await Promise.all([createUser(site), createUser(site)]);
    await addMember(site, 'projects', project.id, soft, 30, owner.token);
    await addMember(site, 'projects', project.id, hard, 30, owner.token);
    const kept = await newMergeRequest('by-soft', {}, soft.token);
    const gone = await newMergeRequest('by-hard', {}, hard.token);
    await site.api(`/projects/${project.id}/merge_requests/${gone.iid}/notes`, { method: 'POST', body: { body: 'note on it' }, as: owner.token });
    expect((await site.api(`/users/${soft.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/users/${hard.id}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
    const ghosted = await site.api(`/projects/${project.id}/merge_requests/${kept.iid}`, { as: owner.token });
    expect(ghosted.body.author.username).toBe('ghost');
    expect((await site.api(`/projects/${project.id}/merge_requests/${gone.iid}`, { as: owner.token })).status).toBe(404);
    expect(site.site.db.prepare("SELECT count(*) AS n FROM notes WHERE noteable_type = 'MergeRequest' AND noteable_id = ?").get(gone.id)).toEqual({ n: 0 });
  });
});
