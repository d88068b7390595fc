import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeabilityChecksSettled } from '../../src/services/merge-requests/mergeability.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { eventLogHead, replicatedSince, startSite, type TestSite } from '../helpers/site.js';

/**
 * GitLab 17's merge request additions (issue 25) over the SPEC's: /version, the new view fields
 * (detailed_merge_status from the stored check, draft, assignees, reviewers, references...),
 * assignee_ids and reviewer_ids on create and update with review_requested todos, add_labels and
 * remove_labels, the reviewer filters, with_labels_details, the reviewers, related_issues and
 * commit merge_requests routes, auto_merge; each with its error rows.
 */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let reviewer: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let group: any;
let project: any;

async function commit(branch: string, files: Record<string, string>, start?: string) {
  const actions = await Promise.all(
    Object.entries(files).map(async ([path, content]) => {
      const found = await site.api(`/projects/${project.id}/repository/files/${encodeURIComponent(path)}?ref=${encodeURIComponent(start ?? branch)}`);
      return { action: found.status === 200 ? 'update' : 'create', file_path: path, content };
    }),
  );
  const response = await site.api(`/projects/${project.id}/repository/commits`, {
    method: 'POST',
    body: { branch, commit_message: `change ${Object.keys(files).join(', ')}`, actions, ...(start ? { start_branch: start } : {}) },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function open(body: Record<string, unknown>, query = '') {
  const response = await site.api(`/projects/${project.id}/merge_requests${query}`, { method: 'POST', body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

const mr = (iid: number, suffix = '', as?: string | null) => site.api(`/projects/${project.id}/merge_requests/${iid}${suffix}`, { as });
const edit = (iid: number, body: Record<string, unknown>, as?: string) => site.api(`/projects/${project.id}/merge_requests/${iid}`, { method: 'PUT', body, as });

/** The detailed status once the background check of the merge request's current heads is stored (a loaded machine checks slowly). */
async function settledStatus(iid: number): Promise<string> {
  await waitFor(async () => (await mr(iid)).body.merge_status !== 'unchecked', { timeoutMs: 60_000, intervalMs: 100, message: `!${iid} checked` });
  await mergeabilityChecksSettled(site.site.ctx);
  return (await mr(iid)).body.detailed_merge_status;
}

beforeAll(async () => {
  site = await startSite();
  [owner, developer, reviewer, reporter, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site), createUser(site)]);
  group = await createGroup(site, { path: 'mr17-group', name: 'mr17-group' });
  project = await createProject(site, { name: 'mr17', visibility: 'private', namespace_id: group.id });
  for (const [user, level] of [[owner, 40], [developer, 30], [reviewer, 30], [reporter, 20]] as const) await addMember(site, 'projects', project.id, user, level);
  await commit('master', { 'README.md': 'hello\n' });
});
afterAll(() => site.stop());

describe('GET /version and /metadata', () => {
  it('reports GitLab 17.11.0 with the edition, kas and enterprise as 17 does; 401 without a token', async () => {
    const version = await site.api('/version', { as: owner.token });
    expect(version.status).toBe(200);
    expect(version.body).toEqual({ version: '17.11.0-ee', revision: expect.any(String), kas: { enabled: false, externalUrl: null, version: null }, enterprise: true });
    expect((await site.api('/version', { as: null })).status).toBe(401);
    expect((await site.api('/metadata', { as: owner.token })).body).toEqual(version.body);
    expect((await site.api('/metadata', { as: null })).status).toBe(401);
  });
});

describe('the GitLab 17 fields', () => {
  it('shows assignees, reviewers, draft, references, task status, prepared_at, diff_refs, head_pipeline and a detailed_merge_status from the stored check', { timeout: 120_000 }, async () => {
    const head = await commit('fields', { 'fields.txt': 'x\n' }, 'master');
    // python-gitlab's create(**kwargs) form: the lists in the query string.
    const created = await open(
      { source_branch: 'fields', target_branch: 'master', title: 'Fields', description: '- [x] one\n- [ ] two', labels: ['b', 'a'] },
      `?assignee_ids[]=${developer.id}&reviewer_ids[]=${reviewer.id}`,
    );
    expect(created).toMatchObject({
      assignee: { id: developer.id },
      assignees: [{ id: developer.id }],
      reviewers: [{ id: reviewer.id, username: reviewer.username }],
      labels: ['a', 'b'],
      draft: false,
      work_in_progress: false,
      merge_user: null,
      merge_after: null,
      reference: `!${created.iid}`,
      references: { short: `!${created.iid}`, relative: `!${created.iid}`, full: `mr17-group/mr17!${created.iid}` },
      task_completion_status: { count: 2, completed_count: 1 },
      has_conflicts: false,
      blocking_discussions_resolved: true,
      head_pipeline: null,
      diff_refs: { head_sha: head.id },
      user: { can_merge: true },
    });
    expect(Date.parse(created.prepared_at)).toBeGreaterThan(0);
    expect(['unchecked', 'mergeable']).toContain(created.detailed_merge_status);
    expect(await settledStatus(created.iid)).toBe('mergeable');

    // Reads write nothing: the detailed status comes from the stored check.
    for (const as of [undefined, reporter.token]) await site.api('/user', { as });
    const before = eventLogHead(site);
    const shown = await mr(created.iid, '', reporter.token);
    expect(shown.body).toMatchObject({ detailed_merge_status: 'mergeable', user: { can_merge: false } });
    const listed = await site.api(`/projects/${project.id}/merge_requests?iids[]=${created.iid}`, { as: reporter.token });
    expect(listed.body[0]).toMatchObject({ detailed_merge_status: 'mergeable', reviewers: [{ id: reviewer.id }], assignees: [{ id: developer.id }], draft: false });
    expect(listed.body[0].user).toBeUndefined();
    expect(replicatedSince(site, before)).toEqual([]);
  });

  it('gives the requested reviewers a review_requested todo and lists them at .../reviewers (401, 404)', async () => {
    await commit('todo', { 'todo.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'todo', target_branch: 'master', title: 'Review me', reviewer_ids: [reviewer.id, developer.id] });
    const todos = await site.api('/todos', { as: reviewer.token });
    expect(todos.body.filter((todo: any) => todo.target.iid === created.iid && todo.target_type === 'MergeRequest')).toMatchObject([{ action_name: 'review_requested', state: 'pending' }]);

    const reviewers = await mr(created.iid, '/reviewers');
    expect(reviewers.status).toBe(200);
    expect(reviewers.body).toEqual([
      { user: expect.objectContaining({ id: reviewer.id }), state: 'unreviewed', created_at: expect.any(String) },
      { user: expect.objectContaining({ id: developer.id }), state: 'unreviewed', created_at: expect.any(String) },
    ]);
    expect((await mr(created.iid, '/reviewers', null)).status).toBe(401);
    expect((await mr(created.iid, '/reviewers', outsider.token)).status).toBe(404);
    expect((await mr(99999, '/reviewers')).status).toBe(404);
    expect((await mr(created.iid, '/pipelines')).body).toEqual([]);
  });

  it('follows Draft:, [Draft], (Draft) and WIP: into draft, the wip filter and draft_status', { timeout: 120_000 }, async () => {
    await commit('drafty', { 'drafty.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'drafty', target_branch: 'master', title: 'Draft: later' });
    expect(created).toMatchObject({ draft: true, work_in_progress: true });
    expect(await settledStatus(created.iid)).toBe('draft_status');
    for (const title of ['[Draft] later', '(Draft) later', 'WIP: later', 'Ready now']) {
      const edited = await edit(created.iid, { title });
      expect(edited.body.draft, title).toBe(title !== 'Ready now');
      const drafts = await site.api(`/projects/${project.id}/merge_requests?wip=yes&iids[]=${created.iid}`);
      expect(drafts.body.length, title).toBe(title !== 'Ready now' ? 1 : 0);
    }
  });
});

describe('assignee_ids, reviewer_ids and labels on update', () => {
  it('sets and clears the lists (JSON or query, 0 or empty), and add_labels / remove_labels change some labels while labels replaces', async () => {
    await commit('lists', { 'lists.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'lists', target_branch: 'master', title: 'Lists', labels: 'one' });
    let edited = await edit(created.iid, { reviewer_ids: [reviewer.id], assignee_ids: [developer.id], add_labels: 'two,three' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ reviewers: [{ id: reviewer.id }], assignees: [{ id: developer.id }], labels: ['one', 'three', 'two'] });
    edited = await edit(created.iid, { remove_labels: ['one', 'missing'] });
    expect(edited.body.labels).toEqual(['three', 'two']);
    edited = await edit(created.iid, { labels: 'solo', add_labels: 'extra' });
    expect(edited.body.labels).toEqual(['extra', 'solo']);

    const cleared = await site.api(`/projects/${project.id}/merge_requests/${created.iid}?reviewer_ids=0&assignee_ids=0`, { method: 'PUT', body: {} });
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).toMatchObject({ reviewers: [], assignees: [], assignee: null });
    edited = await edit(created.iid, { reviewer_ids: [developer.id] });
    expect(edited.body.reviewers).toMatchObject([{ id: developer.id }]);
    edited = await edit(created.iid, { reviewer_ids: [] });
    expect(edited.body.reviewers).toEqual([]);
  });

  it('answers 400 for a bad list, 401 without a token, 403 to a reporter, 404 to an outsider', async () => {
    await commit('errors', { 'errors.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'errors', target_branch: 'master', title: 'Errors' });
    expect((await edit(created.iid, { reviewer_ids: 'abc' })).status).toBe(400);
    expect((await edit(created.iid, { assignee_ids: [-1] })).status).toBe(400);
    expect((await edit(created.iid, { merge_after: 'not a time' })).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: 'errors', target_branch: 'master', title: 'x', reviewer_ids: 'x' } })).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/merge_requests/${created.iid}`, { method: 'PUT', body: { add_labels: 'x' }, as: null })).status).toBe(401);
    expect((await edit(created.iid, { add_labels: 'x' }, reporter.token)).status).toBe(403);
    expect((await edit(created.iid, { add_labels: 'x' }, outsider.token)).status).toBe(404);
  });
});

describe('list filters', () => {
  it('filters by reviewer_id (None, Any), reviewer_username on project, group and global lists, and shows label details', async () => {
    await commit('filtered', { 'filtered.txt': 'x\n' }, 'master');
    const reviewed = await open({ source_branch: 'filtered', target_branch: 'master', title: 'Filtered', reviewer_ids: [reviewer.id], labels: 'detail' });
    const iidsOf = async (path: string) => ((await site.api(path)).body as { iid: number }[]).map((row) => row.iid);
    for (const list of [`/projects/${project.id}/merge_requests`, `/groups/${group.id}/merge_requests`, '/merge_requests']) {
      const query = list === '/merge_requests' ? '?scope=all&' : '?';
      expect(await iidsOf(`${list}${query}reviewer_id=${reviewer.id}`), list).toContain(reviewed.iid);
      expect(await iidsOf(`${list}${query}reviewer_username=${reviewer.username}`), list).toContain(reviewed.iid);
      expect(await iidsOf(`${list}${query}reviewer_id=Any`), list).toContain(reviewed.iid);
      expect(await iidsOf(`${list}${query}reviewer_id=None`), list).not.toContain(reviewed.iid);
      expect(await iidsOf(`${list}${query}reviewer_id=${outsider.id}`), list).toEqual([]);
      expect(await iidsOf(`${list}${query}reviewer_username=nobody-at-all`), list).toEqual([]);
      expect((await site.api(`${list}${query}reviewer_id=abc`)).status, list).toBe(400);
      expect((await site.api(`${list}${query}reviewer_id=1&reviewer_username=x`)).status, list).toBe(400);
    }
    const detailed = await site.api(`/projects/${project.id}/merge_requests?with_labels_details=true&iids[]=${reviewed.iid}`);
    expect(detailed.body[0].labels).toEqual([expect.objectContaining({ id: expect.any(Number), name: 'detail', color: expect.any(String), text_color: expect.any(String) })]);
    expect((await site.api(`/projects/${project.id}/merge_requests?with_labels_details=maybe`)).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/merge_requests?reviewer_id=${reviewer.id}`, { as: null })).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/merge_requests?reviewer_id=${reviewer.id}`, { as: outsider.token })).status).toBe(404);
  });
});

describe('related_issues and a commit\'s merge requests', () => {
  it('lists the issues it closes or mentions (401, 404)', async () => {
    const first = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'closed one' } })).body;
    const second = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'mentioned one' } })).body;
    await commit('related', { 'related.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'related', target_branch: 'master', title: 'Related', description: `Closes #${first.iid}, see #${second.iid} and #9999` });
    const related = await mr(created.iid, '/related_issues');
    expect(related.status).toBe(200);
    expect(related.body.map((issue: { iid: number }) => issue.iid).sort()).toEqual([first.iid, second.iid].sort());
    expect(related.headers['x-total']).toBe('2');
    expect((await mr(created.iid, '/related_issues', null)).status).toBe(401);
    expect((await mr(created.iid, '/related_issues', outsider.token)).status).toBe(404);
    expect((await mr(created.iid, '/related_issues?per_page=abc')).status).toBe(400);
  });

  it('lists the merge requests of a commit, by state (400, 401 on a private project as 404, 404)', async () => {
    const head = await commit('by-commit', { 'by-commit.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'by-commit', target_branch: 'master', title: 'By commit' });
    const path = `/projects/${project.id}/repository/commits/${head.id}/merge_requests`;
    const found = await site.api(path);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject([{ iid: created.iid, detailed_merge_status: expect.any(String) }]);
    expect((await site.api(`${path}?state=merged`)).body).toEqual([]);
    expect((await site.api(`${path}?state=bogus`)).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/repository/commits/${'0'.repeat(40)}/merge_requests`)).status).toBe(404);
    expect((await site.api(path, { as: null })).status).toBe(404);
    expect((await site.api(path, { as: outsider.token })).status).toBe(404);
  });
});

describe('mergeability and merging', () => {
  it('reports conflict, not_approved, merge_time and not_open from what is stored, and refuses a scheduled merge (405)', { timeout: 180_000 }, async () => {
    await commit('clash', { 'README.md': 'theirs\n' }, 'master');
    const clash = await open({ source_branch: 'clash', target_branch: 'master', title: 'Clash' });
    await commit('master', { 'README.md': 'ours\n' });
    await waitFor(async () => (await mr(clash.iid)).body.detailed_merge_status === 'conflict', { timeoutMs: 60_000, intervalMs: 100, message: 'conflict' });
    expect((await mr(clash.iid)).body.has_conflicts).toBe(true);

    await commit('approve-me', { 'approve.txt': 'x\n' }, 'master');
    const gated = await open({ source_branch: 'approve-me', target_branch: 'master', title: 'Gated' });
    expect(await settledStatus(gated.iid)).toBe('mergeable');
    expect((await site.api(`/projects/${project.id}/merge_requests/${gated.iid}/approvals`, { method: 'POST', body: { approvals_required: 1 } })).status).toBe(201);
    expect((await mr(gated.iid)).body.detailed_merge_status).toBe('not_approved');
    expect((await site.api(`/projects/${project.id}/merge_requests/${gated.iid}/approve`, { method: 'POST', body: {}, as: developer.token })).status).toBe(201);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await edit(gated.iid, { merge_after: future });
    expect(scheduled.body).toMatchObject({ merge_after: future, detailed_merge_status: 'merge_time' });
    expect((await site.api(`/projects/${project.id}/merge_requests/${gated.iid}/merge`, { method: 'PUT', body: {} })).status).toBe(405);
    expect((await edit(gated.iid, { merge_after: '' })).body).toMatchObject({ merge_after: null, detailed_merge_status: 'mergeable' });

    expect((await edit(clash.iid, { state_event: 'close' })).body.detailed_merge_status).toBe('not_open');
  });

  it('merges with auto_merge (no pipeline: at once) and shows merge_user (400, 401, 404)', { timeout: 120_000 }, async () => {
    await commit('auto', { 'auto.txt': 'x\n' }, 'master');
    const created = await open({ source_branch: 'auto', target_branch: 'master', title: 'Auto' });
    expect(await settledStatus(created.iid)).toBe('mergeable');
    const path = `/projects/${project.id}/merge_requests/${created.iid}/merge`;
    expect((await site.api(path, { method: 'PUT', body: { auto_merge: 'perhaps' } })).status).toBe(400);
    expect((await site.api(path, { method: 'PUT', body: { auto_merge: true }, as: null })).status).toBe(401);
    expect((await site.api(path, { method: 'PUT', body: { auto_merge: true }, as: outsider.token })).status).toBe(404);
    // A developer may not merge into the protected default branch: 401, as the SPEC has it.
    expect((await site.api(path, { method: 'PUT', body: { auto_merge: true }, as: developer.token })).status).toBe(401);
    const merged = await site.api(path, { method: 'PUT', body: { auto_merge: true } });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', merge_user: { id: merged.body.merged_by.id }, detailed_merge_status: 'not_open' });
  });
});
