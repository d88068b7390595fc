import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Issue links (GitLab 17's IssueLinks API) and resource weight events (issue 25, item 3): links
 * both ways and across projects, their types read from each side, the error rows, GitLab's system
 * notes, blocking_issues_count; weight events written by creates and edits.
 */
let site: TestSite;
let owner: TestUser;
let guest: TestUser;
let outsider: TestUser;
let group: any;
let project: any;
let other: any;
let hidden: any;

async function newIssue(projectId: number, body: Record<string, unknown> = {}, as = owner.token) {
  const response = await site.api(`/projects/${projectId}/issues`, { method: 'POST', body: { title: 'Issue', ...body }, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const link = (projectId: number, iid: number, body: Record<string, unknown>, as = owner.token) =>
  site.api(`/projects/${projectId}/issues/${iid}/links`, { method: 'POST', body, as });

const links = (projectId: number, iid: number, as = owner.token) => site.api(`/projects/${projectId}/issues/${iid}/links`, { as });

const systemNotes = async (projectId: number, iid: number) =>
  (await site.api(`/projects/${projectId}/issues/${iid}/notes?sort=asc&per_page=100`, { as: owner.token })).body.filter((note: any) => note.system).map((note: any) => note.body);

beforeAll(async () => {
  site = await startSite();
  [owner, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  group = await createGroup(site, { visibility: 'public' }, owner.token);
  project = await createProject(site, { visibility: 'public', namespace_id: group.id, path: 'app' }, owner.token);
  other = await createProject(site, { visibility: 'public', path: 'elsewhere' }, owner.token);
  hidden = await createProject(site, { visibility: 'private', path: 'hidden' }, owner.token);
  await addMember(site, 'projects', project.id, guest, 10, owner.token);
});
afterAll(() => site.stop());

describe('issue links', () => {
  it('links two issues, shows the link from both sides with its fields, and notes it on both', async () => {
    const a = await newIssue(project.id, { title: 'A' });
    const b = await newIssue(project.id, { title: 'B' });
    const created = await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: b.iid });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ source_issue: { id: a.id, iid: a.iid, title: 'A' }, target_issue: { id: b.id, iid: b.iid }, link_type: 'relates_to' });

    const fromA = await links(project.id, a.iid);
    expect(fromA.status).toBe(200);
    expect(fromA.body).toHaveLength(1);
    expect(fromA.body[0]).toMatchObject({ id: b.id, iid: b.iid, link_type: 'relates_to', references: { short: `#${b.iid}` } });
    expect(fromA.body[0].issue_link_id).toEqual(expect.any(Number));
    expect(Date.parse(fromA.body[0].link_created_at)).not.toBeNaN();
    expect(fromA.body[0].link_updated_at).toBe(fromA.body[0].link_created_at);
    expect(fromA.body[0]).not.toHaveProperty('subscribed');
    const fromB = await links(project.id, b.iid);
    expect(fromB.body.map((issue: any) => [issue.id, issue.link_type, issue.issue_link_id])).toEqual([[a.id, 'relates_to', fromA.body[0].issue_link_id]]);

    expect(await systemNotes(project.id, a.iid)).toEqual([`marked this issue as related to #${b.iid}`]);
    expect(await systemNotes(project.id, b.iid)).toEqual([`marked this issue as related to #${a.iid}`]);

    const one = await site.api(`/projects/${project.id}/issues/${b.iid}/links/${fromA.body[0].issue_link_id}`, { as: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: 'relates_to' });
  });

  it('reads a blocks link as is_blocked_by from the other side, and stores is_blocked_by as blocks the other way', async () => {
    const a = await newIssue(project.id, { title: 'Blocker' });
    const b = await newIssue(project.id, { title: 'Blocked' });
    const c = await newIssue(project.id, { title: 'Also blocked' });
    expect((await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: b.iid, link_type: 'blocks' })).body.link_type).toBe('blocks');
    const reverse = await link(project.id, c.iid, { target_project_id: String(project.id), target_issue_iid: String(a.iid), link_type: 'is_blocked_by' });
    expect(reverse.status, reverse.text).toBe(201);
    expect(reverse.body).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: c.id }, link_type: 'blocks' });

    expect((await links(project.id, a.iid)).body.map((issue: any) => [issue.id, issue.link_type])).toEqual([
      [b.id, 'blocks'],
      [c.id, 'blocks'],
    ]);
    expect((await links(project.id, b.iid)).body.map((issue: any) => [issue.id, issue.link_type])).toEqual([[a.id, 'is_blocked_by']]);
    expect((await links(project.id, c.iid)).body.map((issue: any) => [issue.id, issue.link_type])).toEqual([[a.id, 'is_blocked_by']]);
    expect(await systemNotes(project.id, a.iid)).toEqual([`marked this issue as blocking #${b.iid}`, `marked this issue as blocking #${c.iid}`]);
    expect(await systemNotes(project.id, c.iid)).toEqual([`marked this issue as blocked by #${a.iid}`]);

    // blocking_issues_count: the open issues it blocks, on the single view and in lists.
    expect((await site.api(`/projects/${project.id}/issues/${a.iid}`, { as: owner.token })).body.blocking_issues_count).toBe(2);
    await site.api(`/projects/${project.id}/issues/${b.iid}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    const listed = (await site.api(`/projects/${project.id}/issues?iids[]=${a.iid}&iids[]=${b.iid}`, { as: owner.token })).body;
    expect(listed.map((issue: any) => [issue.iid, issue.blocking_issues_count])).toEqual([
      [b.iid, 0],
      [a.iid, 1],
    ]);
  });

  it('links across projects the caller reads, with the reference GitLab writes', async () => {
    const a = await newIssue(project.id);
    const far = await newIssue(other.id);
    const created = await link(project.id, a.iid, { target_project_id: other.path_with_namespace, target_issue_iid: far.iid });
    expect(created.status, created.text).toBe(201);
    expect(created.body.target_issue).toMatchObject({ id: far.id, project_id: other.id });
    expect((await links(other.id, far.iid)).body.map((issue: any) => issue.id)).toEqual([a.id]);
    expect(await systemNotes(project.id, a.iid)).toEqual([`marked this issue as related to ${other.path_with_namespace}#${far.iid}`]);
    expect(await systemNotes(other.id, far.iid)).toEqual([`marked this issue as related to ${project.path_with_namespace}#${a.iid}`]);
  });

  it('never shows an issue the caller may not read: confidential and private ones are left out and answer 404', async () => {
    const a = await newIssue(project.id);
    const secret = await newIssue(project.id, { confidential: true, title: 'secret' });
    const privateIssue = await newIssue(hidden.id, { title: 'private' });
    expect((await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: secret.iid })).status).toBe(201);
    expect((await link(project.id, a.iid, { target_project_id: hidden.id, target_issue_iid: privateIssue.iid })).status).toBe(201);
    const all = (await links(project.id, a.iid)).body;
    expect(all.map((issue: any) => issue.id)).toEqual([secret.id, privateIssue.id]);

    const seen = await links(project.id, a.iid, guest.token);
    expect(seen.status).toBe(200);
    expect(seen.body).toEqual([]);
    for (const linked of all) {
      const one = await site.api(`/projects/${project.id}/issues/${a.iid}/links/${linked.issue_link_id}`, { as: guest.token });
      expect(one.status).toBe(404);
      expect(one.body).toEqual({ message: '404 Not found' });
      expect((await site.api(`/projects/${project.id}/issues/${a.iid}/links/${linked.issue_link_id}`, { method: 'DELETE', as: guest.token })).status).toBe(404);
    }
    // Linking to them: the private project is not found, the confidential issue is not found.
    expect((await link(project.id, a.iid, { target_project_id: hidden.id, target_issue_iid: privateIssue.iid }, guest.token)).body).toEqual({ message: '404 Project Not Found' });
    expect((await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: secret.iid }, guest.token)).body).toEqual({ message: '404 Not found' });
  });

  it('unlinks: 200 with the link, notes on both, and gone from both lists', async () => {
    const a = await newIssue(project.id);
    const b = await newIssue(project.id);
    await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: b.iid, link_type: 'blocks' });
    const id = (await links(project.id, b.iid)).body[0].issue_link_id;
    const removed = await site.api(`/projects/${project.id}/issues/${b.iid}/links/${id}`, { method: 'DELETE', as: guest.token });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: 'blocks' });
    expect((await links(project.id, a.iid)).body).toEqual([]);
    expect((await links(project.id, b.iid)).body).toEqual([]);
    expect(await systemNotes(project.id, a.iid)).toEqual([`marked this issue as blocking #${b.iid}`, `removed the relation with #${b.iid}`]);
    expect(await systemNotes(project.id, b.iid)).toEqual([`marked this issue as blocked by #${a.iid}`, `removed the relation with #${a.iid}`]);
    expect((await site.api(`/projects/${project.id}/issues/${b.iid}/links/${id}`, { as: owner.token })).status).toBe(404);
  });

  it('answers the error rows: 401, 400, 404, 403, 409, 422', async () => {
    const a = await newIssue(project.id);
    const b = await newIssue(project.id);
    const target = { target_project_id: project.id, target_issue_iid: b.iid };
    // 401 on every row, reads included (GitLab authenticate!s).
    expect((await site.api(`/projects/${project.id}/issues/${a.iid}/links`, { as: null })).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/issues/${a.iid}/links`, { method: 'POST', body: target, as: null })).status).toBe(401);
    // 400: missing or malformed parameters, before anything is found.
    expect((await link(project.id, a.iid, { target_project_id: project.id })).body).toEqual({ message: 'target_issue_iid is missing' });
    expect((await link(project.id, a.iid, { target_issue_iid: b.iid })).body).toEqual({ message: 'target_project_id is missing' });
    expect((await link(project.id, a.iid, { ...target, target_issue_iid: 'x' })).status).toBe(400);
    expect((await link(project.id, a.iid, { ...target, link_type: 'duplicates' })).body).toEqual({ message: 'link_type does not have a valid value' });
    expect((await site.api(`/projects/${project.id}/issues/${a.iid}/links/abc`, { as: owner.token })).body).toEqual({ message: 'issue_link_id is invalid' });
    // 404: the issue, the target project, the target issue, the link.
    expect((await link(project.id, 9999, target)).status).toBe(404);
    expect((await link(project.id, a.iid, { ...target, target_project_id: 999999 })).body).toEqual({ message: '404 Project Not Found' });
    expect((await link(project.id, a.iid, { ...target, target_issue_iid: 9999 })).body).toEqual({ message: '404 Not found' });
    expect((await site.api(`/projects/${project.id}/issues/${a.iid}/links/999999`, { as: owner.token })).body).toEqual({ message: '404 Not found' });
    // 403: a reader of a public project who is no member may not link its issues.
    const refused = await link(project.id, a.iid, target, outsider.token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("Couldn't link issues. You must have at least the Guest role in both projects.");
    // 201, then 409 for the same pair either way and whatever the type.
    expect((await link(project.id, a.iid, target, guest.token)).status).toBe(201);
    expect((await link(project.id, a.iid, target)).body).toEqual({ message: 'Issue(s) already assigned' });
    const opposite = await link(project.id, b.iid, { target_project_id: project.id, target_issue_iid: a.iid, link_type: 'blocks' });
    expect(opposite.status).toBe(409);
    // 422: an issue linked to itself.
    const self = await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: a.iid });
    expect(self.status).toBe(422);
    expect(self.body).toEqual({ message: `#${a.iid} cannot be added: cannot be related to itself` });
    // 404 on delete for whoever may not link both issues (GitLab's "No Issue Link found").
    const id = (await links(project.id, a.iid)).body[0].issue_link_id;
    expect((await site.api(`/projects/${project.id}/issues/${a.iid}/links/${id}`, { method: 'DELETE', as: outsider.token })).status).toBe(404);
    expect((await links(project.id, a.iid)).body).toHaveLength(1);
  });

  it('goes with a deleted issue', async () => {
    const a = await newIssue(project.id);
    const b = await newIssue(project.id);
    await link(project.id, a.iid, { target_project_id: project.id, target_issue_iid: b.iid });
    expect((await site.api(`/projects/${project.id}/issues/${b.iid}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await links(project.id, a.iid)).body).toEqual([]);
  });
});

describe('the ce edition', () => {
  it('refuses blocks and is_blocked_by (a licensed feature), and links with relates_to', async () => {
    const ce = await startSite({ edition: 'ce' });
    try {
      const user = await createUser(ce);
      const p = await createProject(ce, { path: 'ce' }, user.token);
      const [a, b] = [(await ce.api(`/projects/${p.id}/issues`, { method: 'POST', body: { title: 'a' }, as: user.token })).body, (await ce.api(`/projects/${p.id}/issues`, { method: 'POST', body: { title: 'b' }, as: user.token })).body];
      const refused = await ce.api(`/projects/${p.id}/issues/${a.iid}/links`, { method: 'POST', body: { target_project_id: p.id, target_issue_iid: b.iid, link_type: 'blocks' }, as: user.token });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toContain('Blocked issues not available for current license');
      expect((await ce.api(`/projects/${p.id}/issues/${a.iid}/links`, { method: 'POST', body: { target_project_id: p.id, target_issue_iid: b.iid }, as: user.token })).status).toBe(201);
    } finally {
      await ce.stop();
    }
  });
});

describe('resource weight events', () => {
  it('records a weight set on create, each change and the removal, oldest first, and serves one by id', async () => {
    const issue = await newIssue(project.id, { weight: 3 });
    const put = (body: Record<string, unknown>) => site.api(`/projects/${project.id}/issues/${issue.iid}`, { method: 'PUT', body, as: owner.token });
    await put({ weight: 5 });
    await put({ title: 'no weight change' });
    await put({ weight: '' });
    const list = await site.api(`/projects/${project.id}/issues/${issue.iid}/resource_weight_events`, { as: owner.token });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('3');
    expect(list.body.map((event: any) => event.weight)).toEqual([3, 5, null]);
    expect(list.body[0]).toEqual({ id: expect.any(Number), user: expect.objectContaining({ id: owner.id, username: owner.username }), created_at: expect.any(String), issue_id: issue.id, weight: 3 });
    const one = await site.api(`/projects/${project.id}/issues/${issue.iid}/resource_weight_events/${list.body[1].id}`, { as: guest.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(list.body[1]);
    // GitLab 17 stores no weight note: the notes API does not list one.
    expect(await systemNotes(project.id, issue.iid)).toEqual([expect.stringMatching(/^changed title from /)]);
  });

  it('answers the error rows: 401, 400, 404', async () => {
    const issue = await newIssue(project.id, { weight: 1 });
    const secret = await newIssue(project.id, { weight: 1, confidential: true });
    const base = `/projects/${project.id}/issues/${issue.iid}/resource_weight_events`;
    expect((await site.api(base, { as: null })).status).toBe(401);
    expect((await site.api(`${base}/abc`, { as: owner.token })).body).toEqual({ message: 'event_id is invalid' });
    expect((await site.api(`${base}/999999`, { as: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await site.api(`/projects/${project.id}/issues/${secret.iid}/resource_weight_events`, { as: outsider.token })).status).toBe(404);
    expect((await site.api(`/projects/${hidden.id}/issues/1/resource_weight_events`, { as: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    // An event of another issue is not found through this one.
    const otherEvents = (await site.api(`/projects/${project.id}/issues/${secret.iid}/resource_weight_events`, { as: owner.token })).body;
    expect((await site.api(`${base}/${otherEvents[0].id}`, { as: owner.token })).status).toBe(404);
  });
});
