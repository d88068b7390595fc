import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Award emoji on issues and their notes (issue 14, item 5): GitLab's AwardEmoji entity, names from
 * a real emoji list (`+1` stored as thumbsup), upvotes and downvotes, my_reaction_emoji, and
 * GitLab's answers: 404 for an unknown awardable, a name that is no emoji and a second award of
 * the same emoji, 401 for taking back someone else's award.
 */
let site: TestSite;
let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let project: any;

async function newIssue(body: Record<string, unknown>) {
  return (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body, as: owner.token })).body;
}

beforeAll(async () => {
  site = await startSite();
  [owner, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'public' }, owner.token);
  await addMember(site, 'projects', project.id, guest, 10, owner.token);
});
afterAll(() => site.stop());

describe('award emoji on an issue', () => {
  it('awards (201 AwardEmoji), counts votes, lists, reads and filters by my_reaction_emoji', async () => {
    const issue = await newIssue({ title: 'Liked' });
    const base = `/projects/${project.id}/issues/${issue.iid}/award_emoji`;
    const up = await site.api(base, { method: 'POST', body: { name: '+1' }, as: guest.token });
    expect(up.status).toBe(201);
    expect(up.body).toEqual({
      id: expect.any(Number),
      name: 'thumbsup',
      user: expect.objectContaining({ id: guest.id, username: guest.username }),
      created_at: expect.any(String),
      updated_at: expect.any(String),
      awardable_id: issue.id,
      awardable_type: 'Issue',
    });
    expect((await site.api(base, { method: 'POST', body: { name: 'thumbsup' }, as: outsider.token })).status).toBe(201);
    expect((await site.api(base, { method: 'POST', body: { name: 'thumbsdown' }, as: owner.token })).status).toBe(201);
    expect((await site.api(base, { method: 'POST', body: { name: 'slight_smile' }, as: owner.token })).status).toBe(201);
    const shown = (await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token })).body;
    expect(shown).toMatchObject({ upvotes: 2, downvotes: 1 });
    const list = await site.api(base, { as: outsider.token });
    expect(list.headers['x-total']).toBe('4');
    expect(list.body.map((a: any) => a.name)).toEqual(['thumbsup', 'thumbsup', 'thumbsdown', 'slight_smile']);
    expect(await site.api(`${base}/${up.body.id}`, { as: outsider.token })).toMatchObject({ status: 200, body: { id: up.body.id, name: 'thumbsup' } });
    const mine = (await site.api(`/projects/${project.id}/issues?my_reaction_emoji=thumbsup`, { as: guest.token })).body;
    expect(mine.map((i: any) => i.iid)).toEqual([issue.iid]);
  });

  it('answers 400 without a name, 404 for a non-emoji, a duplicate or an unknown issue, 401 anonymous', async () => {
    const issue = await newIssue({ title: 'Strict' });
    const base = `/projects/${project.id}/issues/${issue.iid}/award_emoji`;
    expect(await site.api(base, { method: 'POST', body: {}, as: guest.token })).toMatchObject({ status: 400, body: { message: 'name is missing' } });
    expect(await site.api(base, { method: 'POST', body: { name: 'not_an_emoji_at_all' }, as: guest.token })).toMatchObject({
      status: 404,
      body: { message: '404 Award Emoji Name is not included in the list Not Found' },
    });
    expect((await site.api(base, { method: 'POST', body: { name: 'tada' }, as: guest.token })).status).toBe(201);
    expect(await site.api(base, { method: 'POST', body: { name: 'tada' }, as: guest.token })).toMatchObject({
      status: 404,
      body: { message: '404 Award Emoji Name has already been taken Not Found' },
    });
    expect(await site.api(base, { method: 'POST', body: { name: 'tada' }, as: null })).toMatchObject({ status: 401 });
    expect(await site.api(`/projects/${project.id}/issues/999/award_emoji`, { as: guest.token })).toMatchObject({ status: 404 });
    expect(await site.api(`${base}/99999`, { as: guest.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await site.api(`${base}/abc`, { as: guest.token })).toMatchObject({ status: 400, body: { message: 'award_id is invalid' } });
  });

  it('lets the giver and admins take an award back (204), nobody else (401)', async () => {
    const issue = await newIssue({ title: 'Taken back' });
    const base = `/projects/${project.id}/issues/${issue.iid}/award_emoji`;
    const award = (await site.api(base, { method: 'POST', body: { name: 'heart' }, as: guest.token })).body;
    expect(await site.api(`${base}/${award.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({ status: 401 });
    expect((await site.api(`${base}/${award.id}`, { method: 'DELETE', as: guest.token })).status).toBe(204);
    expect(await site.api(`${base}/${award.id}`, { as: guest.token })).toMatchObject({ status: 404 });
    const again = (await site.api(base, { method: 'POST', body: { name: 'heart' }, as: guest.token })).body;
    expect((await site.api(`${base}/${again.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('keeps non-members off a locked issue and hides a confidential one (404)', async () => {
    const locked = await newIssue({ title: 'Locked', discussion_locked: true });
    expect(await site.api(`/projects/${project.id}/issues/${locked.iid}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: outsider.token })).toMatchObject({
      status: 404,
      body: { message: '404 Award Emoji Not Found' },
    });
    expect((await site.api(`/projects/${project.id}/issues/${locked.iid}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: guest.token })).status).toBe(201);
    const secret = await newIssue({ title: 'Secret', confidential: true });
    expect(await site.api(`/projects/${project.id}/issues/${secret.iid}/award_emoji`, { as: guest.token })).toMatchObject({ status: 404 });
    expect(await site.api(`/projects/${project.id}/issues/${secret.iid}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: outsider.token })).toMatchObject({ status: 404 });
  });
});

describe('award emoji on a note', () => {
  it('awards a note, lists and deletes it; a system note takes none; deleting the note deletes its awards', async () => {
    const issue = await newIssue({ title: 'Noted' });
    const note = (await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { method: 'POST', body: { body: 'nice' }, as: owner.token })).body;
    const base = `/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`;
    const award = await site.api(base, { method: 'POST', body: { name: 'rocket' }, as: guest.token });
    expect(award).toMatchObject({ status: 201, body: { name: 'rocket', awardable_id: note.id, awardable_type: 'Note', user: { id: guest.id } } });
    expect((await site.api(base, { as: outsider.token })).body.map((a: any) => a.name)).toEqual(['rocket']);
    expect(await site.api(`${base}/${award.body.id}`, { as: outsider.token })).toMatchObject({ status: 200, body: { id: award.body.id } });
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token })).body.upvotes).toBe(0);
    expect(await site.api(`/projects/${project.id}/issues/${issue.iid}/notes/99999/award_emoji`, { as: guest.token })).toMatchObject({ status: 404 });
    await site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    const system = (await site.api(`/projects/${project.id}/issues/${issue.iid}/notes`, { as: owner.token })).body.find((n: any) => n.system);
    expect(await site.api(`/projects/${project.id}/issues/${issue.iid}/notes/${system.id}/award_emoji`, { method: 'POST', body: { name: 'tada' }, as: guest.token })).toMatchObject({
      status: 404,
    });
    expect((await site.api(`${base}/${award.body.id}`, { method: 'DELETE', as: guest.token })).status).toBe(204);
    await site.api(base, { method: 'POST', body: { name: 'eyes' }, as: guest.token });
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    const left = site.site.db.prepare("SELECT count(*) AS n FROM award_emoji WHERE awardable_type = 'Note' AND awardable_id = ?").get(note.id) as { n: number };
    expect(left.n).toBe(0);
  });
});
