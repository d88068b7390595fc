import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createdBy, createGroup, createGroupTeam, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Epics (issue 16, item 4; SPEC "Epics and epic issues"; GITLAB-NOTES 2.5): CRUD on both path
 * forms, iids per group never reused, labels as a list or an array, dates, close and reopen, the
 * list's filters and order, and the 400/401/403/404 rows, the ce edition's 403 first of all.
 */
let site: TestSite;
let owner: TestUser, reporter: TestUser, guest: TestUser, outsider: TestUser;
let group: any;

const BASES = ['/-/epics', '/epics'] as const;

const newEpic = (body: Record<string, unknown>, as = owner.token, groupId = group.id) => createdBy(site, `/groups/${groupId}/epics`, body, as);

beforeAll(async () => {
  site = await startSite();
  ({ owner, reporter, guest, outsider, group } = await createGroupTeam(site));
});
afterAll(() => site.stop());

describe('epics', () => {
  it('creates an epic on either path form with the Epic entity, labels echoed as an array', async () => {
    const created = await newEpic({ title: 'Roadmap', description: 'Big plans', start_date: '2026-01-01', end_date: '2026-03-31', labels: 'plan,q1' });
    expect(created).toEqual({
      id: expect.any(Number),
      iid: expect.any(Number),
      group_id: group.id,
      title: 'Roadmap',
      description: 'Big plans',
      state: 'opened',
      author: expect.objectContaining({ id: owner.id, username: owner.username }),
      start_date: '2026-01-01',
      end_date: '2026-03-31',
      web_url: `${site.url}/groups/${group.full_path}/-/epics/${created.iid}`,
      labels: ['plan', 'q1'],
      upvotes: 0,
      downvotes: 0,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      closed_at: null,
    });
    const dashed = await site.api(`/groups/${group.id}/-/epics`, { method: 'POST', body: { title: 'Dashed', labels: ['q1', 'x'] }, as: reporter.token });
    expect(dashed.status).toBe(201);
    expect(dashed.body).toMatchObject({ iid: created.iid + 1, labels: ['q1', 'x'], author: { id: reporter.id }, start_date: null, end_date: null });
    // The labels were made as group labels, found again by the second epic.
    const labels = await site.api(`/groups/${group.id}/labels`, { as: owner.token });
    expect(labels.body.map((label: any) => label.name).sort()).toEqual(['plan', 'q1', 'x']);
  });

  it('gives iids per group that a delete never frees', async () => {
    const other = await createGroup(site, {}, owner.token);
    const first = await newEpic({ title: 'one' }, owner.token, other.id);
    expect(first.iid).toBe(1);
    const second = await newEpic({ title: 'two' }, owner.token, other.id);
    expect((await site.api(`/groups/${other.id}/epics/${second.iid}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await newEpic({ title: 'three' }, owner.token, other.id)).iid).toBe(3);
  });

  it('gets, updates (title, description, dates, labels, state_event) and deletes on both path forms', async () => {
    for (const base of BASES) {
      const epic = await newEpic({ title: `t ${base}`, labels: ['a'] });
      const path = `/groups/${group.id}${base}/${epic.iid}`;
      expect(await site.api(path, { as: guest.token })).toMatchObject({ status: 200, body: { id: epic.id, title: `t ${base}` } });
      const updated = await site.api(path, { method: 'PUT', body: { title: 'renamed', description: 'd', start_date: '2026-02-02', labels: 'b,c' }, as: reporter.token });
      expect(updated).toMatchObject({ status: 200, body: { title: 'renamed', description: 'd', start_date: '2026-02-02', labels: ['b', 'c'] } });
      const closed = await site.api(path, { method: 'PUT', body: { state_event: 'close' }, as: reporter.token });
      expect(closed.body).toMatchObject({ state: 'closed', closed_at: expect.any(String) });
      const reopened = await site.api(path, { method: 'PUT', body: { state_event: 'reopen' }, as: reporter.token });
      expect(reopened.body).toMatchObject({ state: 'opened', closed_at: null });
      expect((await site.api(path, { method: 'DELETE', as: reporter.token })).status).toBe(403);
      expect((await site.api(path, { method: 'DELETE', as: owner.token })).status).toBe(204);
      expect(await site.api(path, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    }
  });

  it('lists epics paginated, newest first, with author_id, labels, search, state, order_by and sort', async () => {
    const listGroup = await createGroup(site, {}, owner.token);
    await addMember(site, 'groups', listGroup.id, reporter, 20, owner.token);
    const a = await newEpic({ title: 'alpha search-me', labels: ['red'] }, owner.token, listGroup.id);
    const b = await newEpic({ title: 'beta', labels: ['red', 'blue'] }, reporter.token, listGroup.id);
    const c = await newEpic({ title: 'gamma', description: 'search-me too' }, owner.token, listGroup.id);
    await site.api(`/groups/${listGroup.id}/epics/${a.iid}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    const ids = async (query: string) => {
      const response = await site.api(`/groups/${listGroup.id}/epics${query}`, { as: owner.token });
      expect(response.status, response.text).toBe(200);
      return response.body.map((epic: any) => epic.id);
    };
    expect(await ids('')).toEqual([c.id, b.id, a.id]);
    expect(await ids('?sort=asc')).toEqual([a.id, b.id, c.id]);
    expect(await ids('?order_by=updated_at')).toEqual([a.id, c.id, b.id]);
    expect(await ids(`?author_id=${reporter.id}`)).toEqual([b.id]);
    expect(await ids('?labels=red')).toEqual([b.id, a.id]);
    expect(await ids('?labels=red,blue')).toEqual([b.id]);
    expect(await ids('?labels=nope')).toEqual([]);
    expect(await ids('?search=search-me')).toEqual([c.id, a.id]);
    expect(await ids('?state=closed')).toEqual([a.id]);
    expect(await ids('?state=opened')).toEqual([c.id, b.id]);
    const paged = await site.api(`/groups/${listGroup.id}/epics?per_page=2&page=2`, { as: owner.token });
    expect(paged.body.map((epic: any) => epic.id)).toEqual([a.id]);
    expect(paged.headers).toMatchObject({ 'x-total': '3', 'x-total-pages': '2', 'x-page': '2', 'x-per-page': '2' });
    expect((await site.api(`/groups/${listGroup.id}/epics?state=nope`, { as: owner.token })).status).toBe(400);
  });

  it('refuses bad input with 400', async () => {
    const post = (body: Record<string, unknown>) => site.api(`/groups/${group.id}/epics`, { method: 'POST', body, as: owner.token });
    expect(await post({ description: 'x' })).toMatchObject({ status: 400, body: { message: 'title is missing' } });
    expect(await post({ title: 'x', start_date: '2026-13-01' })).toMatchObject({ status: 400, body: { message: 'start_date is invalid' } });
    expect(await post({ title: 'x', end_date: 'tomorrow' })).toMatchObject({ status: 400, body: { message: 'end_date is invalid' } });
    const epic = await newEpic({ title: 'y' });
    const put = await site.api(`/groups/${group.id}/epics/${epic.iid}`, { method: 'PUT', body: {}, as: owner.token });
    expect(put).toMatchObject({ status: 400, body: { message: expect.stringContaining('at least one parameter must be provided') } });
    expect((await site.api(`/groups/${group.id}/epics/${epic.iid}`, { method: 'PUT', body: { state_event: 'merge' }, as: owner.token })).status).toBe(400);
    expect((await site.api(`/groups/${group.id}/epics/abc`, { as: owner.token })).status).toBe(400);
  });

  it('answers 401 anonymous, 404 to non-members of a private group, 403 to guests who write', async () => {
    const epic = await newEpic({ title: 'guarded' });
    for (const base of BASES) {
      const list = `/groups/${group.id}${base}`;
      const one = `${list}/${epic.iid}`;
      expect(await site.api(list, { as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
      expect(await site.api(one, { as: null })).toMatchObject({ status: 401 });
      expect(await site.api(list, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
      expect(await site.api(one, { as: outsider.token })).toMatchObject({ status: 404 });
      expect((await site.api(list, { method: 'POST', body: { title: 'x' }, as: guest.token })).status).toBe(403);
      expect((await site.api(one, { method: 'PUT', body: { title: 'x' }, as: guest.token })).status).toBe(403);
      expect((await site.api(one, { method: 'DELETE', as: guest.token })).status).toBe(403);
      expect((await site.api(`${list}/99999`, { as: owner.token })).status).toBe(404);
    }
  });
});

describe('notes and award emoji on epics (the tracker\'s routes and services)', () => {
  it('comments, threads and awards on an epic on both path forms, with the 401/404/403 rows', async () => {
    const epic = await newEpic({ title: 'discussed' });
    const notedIds: number[] = [];
    for (const base of BASES) {
      const path = `/groups/${group.id}${base}/${epic.iid}`;
      const note = await site.api(`${path}/notes`, { method: 'POST', body: { body: `hello ${base}` }, as: guest.token });
      expect(note.status, note.text).toBe(201);
      expect(note.body).toMatchObject({ body: `hello ${base}`, noteable_type: 'Epic', noteable_id: epic.id, noteable_iid: epic.iid, author: { id: guest.id }, system: false });
      const edited = await site.api(`${path}/notes/${note.body.id}`, { method: 'PUT', body: { body: 'edited' }, as: guest.token });
      expect(edited).toMatchObject({ status: 200, body: { body: 'edited' } });
      expect((await site.api(`${path}/notes/${note.body.id}`, { method: 'PUT', body: { body: 'not yours' }, as: reporter.token })).status).toBe(403);
      expect((await site.api(`${path}/notes/${note.body.id}`, { method: 'PUT', body: { body: 'a maintainer may' }, as: owner.token })).status).toBe(200);
      const thread = await site.api(`${path}/discussions`, { method: 'POST', body: { body: 'a thread' }, as: reporter.token });
      expect(thread.status, thread.text).toBe(201);
      const reply = await site.api(`${path}/discussions/${thread.body.id}/notes`, { method: 'POST', body: { body: 'a reply' }, as: owner.token });
      expect(reply.status, reply.text).toBe(201);
      const award = await site.api(`${path}/notes/${note.body.id}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: reporter.token });
      expect(award).toMatchObject({ status: 201, body: { name: 'tada', awardable_type: 'Note' } });
      notedIds.push(note.body.id);
      expect(await site.api(`${path}/notes`, { as: null })).toMatchObject({ status: 401 });
      expect((await site.api(`${path}/notes`, { as: outsider.token })).status).toBe(404);
      expect((await site.api(`${path}/notes`, { method: 'POST', body: { body: 'x' }, as: outsider.token })).status).toBe(404);
      expect((await site.api(`${path}/resource_label_events`, { as: owner.token })).status).toBe(404);
    }
    const path = `/groups/${group.id}/epics/${epic.iid}`;
    const notes = await site.api(`${path}/notes?sort=asc`, { as: owner.token });
    expect(notes.body.map((note: any) => note.body)).toEqual(['a maintainer may', 'a thread', 'a reply', 'a maintainer may', 'a thread', 'a reply']);
    expect(notes.headers['x-total']).toBe('6');
    const discussions = await site.api(`${path}/discussions`, { as: guest.token });
    expect(discussions.body.map((discussion: any) => discussion.notes.length)).toEqual([1, 2, 1, 2]);

    const up = await site.api(`${path}/award_emoji`, { method: 'POST', body: { name: 'thumbsup' }, as: guest.token });
    expect(up).toMatchObject({ status: 201, body: { name: 'thumbsup', awardable_type: 'Epic', awardable_id: epic.id } });
    await site.api(`${path}/award_emoji`, { method: 'POST', body: { name: 'thumbsdown' }, as: owner.token });
    expect((await site.api(`${path}/award_emoji`, { as: guest.token })).body.map((award: any) => award.name)).toEqual(['thumbsup', 'thumbsdown']);
    expect((await site.api(path, { as: guest.token })).body).toMatchObject({ upvotes: 1, downvotes: 1 });
    expect((await site.api(`${path}/award_emoji`, { method: 'POST', body: { name: 'thumbsup' }, as: guest.token })).status).toBe(404);
    expect((await site.api(`${path}/award_emoji/${up.body.id}`, { method: 'DELETE', as: reporter.token })).status).toBe(401);
    expect((await site.api(`${path}/award_emoji/${up.body.id}`, { method: 'DELETE', as: guest.token })).status).toBe(204);

    // Deleting the epic takes its notes and awards (polymorphic rows, no foreign key).
    expect((await site.api(path, { method: 'DELETE', as: owner.token })).status).toBe(204);
    const db = site.site.db;
    expect(db.prepare("SELECT count(*) FROM notes WHERE noteable_type = 'Epic' AND noteable_id = ?").pluck().get(epic.id)).toBe(0);
    expect(db.prepare("SELECT count(*) FROM award_emoji WHERE awardable_type = 'Epic' AND awardable_id = ?").pluck().get(epic.id)).toBe(0);
    for (const noteId of notedIds) expect(db.prepare("SELECT count(*) FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id = ?").pluck().get(noteId)).toBe(0);
  });
});

describe('comment events of epics', () => {
  it('show the comment to its author and group members, never to outsiders of a private group', async () => {
    const epic = await newEpic({ title: 'eventful' });
    const note = await site.api(`/groups/${group.id}/epics/${epic.iid}/notes`, { method: 'POST', body: { body: 'an event' }, as: reporter.token });
    expect(note.status).toBe(201);
    const commented = (body: any[]) => body.filter((event) => event.action_name === 'commented on' && event.target_id === note.body.id);
    const own = await site.api('/events', { as: reporter.token });
    expect(own.status, own.text).toBe(200);
    expect(commented(own.body)).toMatchObject([{ target_type: 'Note', target_title: 'eventful', note: { body: 'an event', noteable_type: 'Epic' } }]);
    const byMember = await site.api(`/users/${reporter.id}/events`, { as: guest.token });
    expect(byMember.status, byMember.text).toBe(200);
    expect(commented(byMember.body)).toHaveLength(1);
    const byOutsider = await site.api(`/users/${reporter.id}/events`, { as: outsider.token });
    expect(byOutsider.status, byOutsider.text).toBe(200);
    expect(commented(byOutsider.body)).toHaveLength(0);
  });
});

describe('a deleted author', () => {
  it('leaves epics to the ghost user, or takes them and their label links with hard_delete', async () => {
    const [soft, hard] = [await createUser(site), await createUser(site)];
    for (const user of [soft, hard]) await addMember(site, 'groups', group.id, user, 20, owner.token);
    const kept = await newEpic({ title: 'kept' }, soft.token);
    const gone = await newEpic({ title: 'gone', labels: ['hard'] }, hard.token);
    expect((await site.api(`/users/${soft.id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    expect((await site.api(`/users/${hard.id}?hard_delete=true`, { method: 'DELETE' })).status).toBeLessThan(300);
    const read = await site.api(`/groups/${group.id}/epics/${kept.iid}`, { as: owner.token });
    expect(read).toMatchObject({ status: 200, body: { author: { username: 'ghost' } } });
    expect((await site.api(`/groups/${group.id}/epics/${gone.iid}`, { as: owner.token })).status).toBe(404);
    expect(site.site.db.prepare("SELECT count(*) FROM label_links WHERE target_type = 'Epic' AND target_id = ?").pluck().get(gone.id)).toBe(0);
  });
});

describe('epics in the ce edition', () => {
  let ce: TestSite;
  beforeAll(async () => {
    ce = await startSite({ edition: 'ce' });
  });
  afterAll(() => ce.stop());

  it('answers 403 on every epic route of both path forms before any other check', async () => {
    const ceGroup = await createGroup(ce);
    for (const base of BASES) {
      for (const groupRef of [ceGroup.id, 99999]) {
        for (const as of [undefined, null]) {
          const paths: [string, string][] = [
            ['GET', `/groups/${groupRef}${base}`],
            ['POST', `/groups/${groupRef}${base}`],
            ['GET', `/groups/${groupRef}${base}/1`],
            ['PUT', `/groups/${groupRef}${base}/1`],
            ['DELETE', `/groups/${groupRef}${base}/1`],
            ['GET', `/groups/${groupRef}${base}/1/issues`],
            ['POST', `/groups/${groupRef}${base}/1/issues/1`],
            ['PUT', `/groups/${groupRef}${base}/1/issues/1`],
            ['DELETE', `/groups/${groupRef}${base}/1/issues/1`],
            ['GET', `/groups/${groupRef}${base}/1/notes`],
            ['POST', `/groups/${groupRef}${base}/1/notes`],
            ['POST', `/groups/${groupRef}${base}/1/award_emoji`],
          ];
          for (const [method, path] of paths) {
            expect(await ce.api(path, { method, body: {}, as }), `${method} ${path}`).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
          }
        }
      }
    }
  });
});
