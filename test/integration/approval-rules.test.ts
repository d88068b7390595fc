import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Approval rules (ee; issue 25): project and merge request rules with their error rows, the
 * approval state, reset_approvals for bots, and the merge gate on a real repository.
 */
let site: TestSite;
let owner: TestUser;
let maintainer: TestUser;
let developer: TestUser;
let reviewer: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let project: any;
let group: TestGroup;

const rules = (suffix = '') => `/projects/${project.id}/approval_rules${suffix}`;
const mrPath = (iid: number, suffix = '') => `/projects/${project.id}/merge_requests/${iid}${suffix}`;

async function commit(branch: string, files: Record<string, string>, start?: string) {
  const actions = Object.entries(files).map(([path, content]) => ({ action: 'create', file_path: path, content }));
  const response = await site.api(`/projects/${project.id}/repository/commits`, {
    method: 'POST',
    as: owner.token,
    body: { branch, commit_message: `change ${Object.keys(files).join(', ')}`, actions, ...(start ? { start_branch: start } : {}) },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

async function openMergeRequest(branch: string, target = 'master') {
  await commit(branch, { [`${branch}.txt`]: `${branch}\n` }, target);
  const response = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', as: developer.token, body: { source_branch: branch, target_branch: target, title: branch } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

beforeAll(async () => {
  site = await startSite();
  [owner, maintainer, developer, reviewer, reporter, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { visibility: 'private' }, owner.token);
  await addMember(site, 'projects', project.id, maintainer, 40, owner.token);
  await addMember(site, 'projects', project.id, developer, 30, owner.token);
  await addMember(site, 'projects', project.id, reviewer, 30, owner.token);
  await addMember(site, 'projects', project.id, reporter, 20, owner.token);
  group = await createGroup(site, { visibility: 'internal' }, owner.token);
  await addMember(site, 'groups', group.id, reviewer, 30, owner.token);
  await commit('master', { 'README.md': 'hello\n' });
  const protection = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'master', push_access_level: 40, merge_access_level: 30 } });
  expect([201, 409]).toContain(protection.status);
  if (protection.status === 409) {
    await site.api(`/projects/${project.id}/protected_branches/master`, { method: 'DELETE', as: owner.token });
    expect((await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'master', push_access_level: 40, merge_access_level: 30 } })).status).toBe(201);
  }
});
afterAll(() => site?.stop());

describe('project approval rules', () => {
  it('creates, shows, lists, updates and deletes a rule with users, groups and protected branches', async () => {
    const branches = (await site.api(`/projects/${project.id}/protected_branches`, { as: owner.token })).body;
    const master = branches.find((branch: any) => branch.name === 'master');
    const created = await site.api(rules(), {
      method: 'POST',
      as: maintainer.token,
      // An outsider is dropped silently (not in the project's team), as GitLab's ParamsFilteringService does.
      body: { name: 'Security', approvals_required: 2, users: [reviewer.id, outsider.id], group_ids: [group.id], protected_branch_ids: [master.id, 999999] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Security',
      rule_type: 'regular',
      approvals_required: 2,
      users: [{ id: reviewer.id, username: reviewer.username }],
      groups: [{ id: group.id, full_path: group.full_path }],
      // The named user, then the group's members (its creator is its owner).
      eligible_approvers: [{ id: reviewer.id }, { id: owner.id }],
      contains_hidden_groups: false,
      report_type: null,
      protected_branches: [{ id: master.id, name: 'master' }],
      applies_to_all_protected_branches: false,
    });
    const id = created.body.id;
    expect((await site.api(rules(`/${id}`), { as: reporter.token })).body).toEqual(created.body);
    const listed = await site.api(rules(), { as: reporter.token });
    expect(listed.status).toBe(200);
    expect(listed.headers['x-total']).toBe('1');
    expect(listed.body).toEqual([created.body]);

    const updated = await site.api(rules(`/${id}`), { method: 'PUT', as: maintainer.token, body: { approvals_required: 1, user_ids: [developer.id], group_ids: [] } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Security', approvals_required: 1, users: [{ id: developer.id }], groups: [], protected_branches: [{ id: master.id }] });
    expect((await site.api(rules(`/${id}`), { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await site.api(rules(`/${id}`), { as: maintainer.token })).body).toEqual({ message: '404 Not found' });
  });

  it('answers the error rows: 401, 404, 403, 400 parameters and validation', async () => {
    const body = { name: 'Any', approvals_required: 1 };
    expect((await site.api(rules(), { as: null })).status).toBe(401);
    expect((await site.api(rules(), { method: 'POST', as: null, body })).status).toBe(401);
    expect((await site.api(rules(), { as: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await site.api(rules(), { method: 'POST', as: developer.token, body })).status).toBe(403);
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body: { approvals_required: 1 } })).body).toEqual({ message: 'name is missing' });
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'x' } })).body).toEqual({ message: 'approvals_required is missing' });
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'x', approvals_required: 'many' } })).status).toBe(400);
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'x', approvals_required: 101 } })).body).toEqual({
      message: { approvals_required: ['must be less than or equal to 100'] },
    });
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'x', approvals_required: 1, rule_type: 'code_owner' } })).status).toBe(400);
    // A rule naming no one is an any_approver rule, one per project.
    const any = await site.api(rules(), { method: 'POST', as: maintainer.token, body });
    expect(any.status, any.text).toBe(201);
    expect(any.body.rule_type).toBe('any_approver');
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body })).body).toEqual({ message: { name: ['has already been taken'] } });
    expect((await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'Other', approvals_required: 1 } })).body).toEqual({
      message: { rule_type: ['any-approver for the project already exists'] },
    });
    expect((await site.api(rules('/abc'), { as: maintainer.token })).status).toBe(400);
    expect((await site.api(rules('/999999'), { method: 'PUT', as: maintainer.token, body: { approvals_required: 1 } })).status).toBe(404);
    expect((await site.api(rules(`/${any.body.id}`), { method: 'PUT', as: developer.token, body: { approvals_required: 1 } })).status).toBe(403);
    expect((await site.api(rules(`/${any.body.id}`), { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(rules(`/${any.body.id}`), { method: 'DELETE', as: maintainer.token })).status).toBe(204);
  });

  it('is ee only: a ce site answers as an unknown route', async () => {
    const ce = await startSite({ edition: 'ce' });
    try {
      expect((await ce.api('/projects/1/approval_rules')).body).toEqual({ error: '404 Not Found' });
    } finally {
      await ce.stop();
    }
  });
});

describe('the merge gate and the approval state', () => {
  it('blocks the merge until the rule user approves; others may not approve; approval_state and approvals reflect the rule', async () => {
    const rule = await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'Reviewer', approvals_required: 1, user_ids: [reviewer.id] } });
    expect(rule.status, rule.text).toBe(201);
    try {
      const mr = await openMergeRequest('gated');
      const state = await site.api(mrPath(mr.iid, '/approval_state'), { as: reporter.token });
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({
        approval_rules_overwritten: false,
        rules: [{ id: rule.body.id, name: 'Reviewer', rule_type: 'regular', approvals_required: 1, eligible_approvers: [{ id: reviewer.id }], approved_by: [], approved: false, source_rule: null, overridden: false, code_owner: false }],
      });
      const approvals = await site.api(mrPath(mr.iid, '/approvals'), { as: maintainer.token });
      expect(approvals.body).toMatchObject({ approvals_required: 1, approvals_missing: 1, approved: false, has_approval_rules: true, approval_rules_left: [{ id: rule.body.id, name: 'Reviewer', rule_type: 'regular' }], user_can_approve: false });
      expect((await site.api(mrPath(mr.iid, '/merge'), { method: 'PUT', as: maintainer.token, body: {} })).status).toBe(405);
      // A developer not named by the rule may not approve while it is unmet (GitLab's eligible_for_approval_by?).
      expect((await site.api(mrPath(mr.iid, '/approve'), { method: 'POST', as: maintainer.token, body: {} })).status).toBe(401);
      expect((await site.api(mrPath(mr.iid, '/approvals'), { as: reviewer.token })).body.user_can_approve).toBe(true);
      const approved = await site.api(mrPath(mr.iid, '/approve'), { method: 'POST', as: reviewer.token, body: {} });
      expect(approved.status, approved.text).toBe(201);
      expect(approved.body).toMatchObject({ approvals_required: 1, approvals_left: 0, approved: true, approval_rules_left: [] });
      expect((await site.api(mrPath(mr.iid, '/approval_state'), { as: reporter.token })).body.rules[0]).toMatchObject({ approved: true, approved_by: [{ id: reviewer.id }] });
      await waitFor(async () => (await site.api(mrPath(mr.iid), { as: owner.token })).body.merge_status !== 'unchecked', { timeoutMs: 20_000 });
      const merged = await site.api(mrPath(mr.iid, '/merge'), { method: 'PUT', as: maintainer.token, body: {} });
      expect(merged.status, merged.text).toBe(200);
      expect(merged.body.state).toBe('merged');
    } finally {
      await site.api(rules(`/${rule.body.id}`), { method: 'DELETE', as: maintainer.token });
    }
  });

  it('applies a rule limited to protected branches only to merge requests into them', async () => {
    const master = (await site.api(`/projects/${project.id}/protected_branches/master`, { as: owner.token })).body;
    const rule = (await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'Master only', approvals_required: 1, user_ids: [reviewer.id], protected_branch_ids: [master.id] } })).body;
    try {
      await commit('develop', { 'develop.txt': 'd\n' }, 'master');
      const other = await openMergeRequest('feature-of-develop', 'develop');
      expect((await site.api(mrPath(other.iid, '/approval_state'), { as: owner.token })).body.rules).toEqual([]);
      expect((await site.api(mrPath(other.iid, '/approvals'), { as: owner.token })).body).toMatchObject({ approvals_required: 0, approved: true });
      const intoMaster = await openMergeRequest('feature-of-master');
      expect((await site.api(mrPath(intoMaster.iid, '/approval_state'), { as: owner.token })).body.rules.map((r: any) => r.id)).toEqual([rule.id]);
    } finally {
      await site.api(rules(`/${rule.id}`), { method: 'DELETE', as: maintainer.token });
    }
  });
});

describe('merge request approval rules', () => {
  it('overrides the project rules; copies a project rule; error rows', async () => {
    const projectRule = (await site.api(rules(), { method: 'POST', as: maintainer.token, body: { name: 'Project rule', approvals_required: 2, user_ids: [reviewer.id, maintainer.id] } })).body;
    try {
      const mr = await openMergeRequest('own-rules');
      const base = mrPath(mr.iid, '/approval_rules');
      expect((await site.api(base, { as: reporter.token })).body).toEqual([]);
      expect((await site.api(base, { method: 'POST', as: reporter.token, body: { name: 'x', approvals_required: 1 } })).status).toBe(403);
      expect((await site.api(base, { method: 'POST', as: null, body: { name: 'x', approvals_required: 1 } })).status).toBe(401);
      expect((await site.api(base, { method: 'POST', as: developer.token, body: { approvals_required: 1 } })).body).toEqual({ message: 'name is missing' });
      expect((await site.api(mrPath(999999, '/approval_rules'), { as: developer.token })).status).toBe(404);

      const copied = await site.api(base, { method: 'POST', as: developer.token, body: { name: 'ignored', approvals_required: 1, approval_project_rule_id: projectRule.id } });
      expect(copied.status, copied.text).toBe(201);
      expect(copied.body).toMatchObject({ name: 'Project rule', approvals_required: 1, source_rule: { approvals_required: 2 }, overridden: true, section: null });
      // The rule's users in id order, as the project rule lists them.
      expect(copied.body.users.map((user: { id: number }) => user.id)).toEqual([reviewer.id, maintainer.id].sort((a, b) => a - b));
      const state = (await site.api(mrPath(mr.iid, '/approval_state'), { as: developer.token })).body;
      expect(state.approval_rules_overwritten).toBe(true);
      expect(state.rules.map((r: any) => r.id)).toEqual([copied.body.id]);
      expect((await site.api(mrPath(mr.iid, '/approvals'), { as: developer.token })).body.approvals_required).toBe(1);

      const shown = await site.api(`${base}/${copied.body.id}`, { as: reporter.token });
      expect(shown.body).toEqual(copied.body);
      const edited = await site.api(`${base}/${copied.body.id}`, { method: 'PUT', as: developer.token, body: { approvals_required: 2, usernames: [reviewer.username] } });
      expect(edited.status, edited.text).toBe(200);
      expect(edited.body).toMatchObject({ approvals_required: 2, users: [{ id: reviewer.id }], overridden: false });
      expect((await site.api(`${base}/${copied.body.id}`, { method: 'PUT', as: reporter.token, body: { approvals_required: 1 } })).status).toBe(403);
      expect((await site.api(`${base}/999999`, { as: developer.token })).body).toEqual({ message: '404 Not found' });
      // A project that forbids overriding refuses merge request rule changes (GitLab's update_approvers).
      await site.api(`/projects/${project.id}/approvals`, { method: 'POST', as: owner.token, body: { disable_overriding_approvers_per_merge_request: true } });
      try {
        expect((await site.api(`${base}/${copied.body.id}`, { method: 'DELETE', as: developer.token })).status).toBe(403);
        expect((await site.api(mrPath(mr.iid, '/approval_state'), { as: developer.token })).body.approval_rules_overwritten).toBe(false);
      } finally {
        await site.api(`/projects/${project.id}/approvals`, { method: 'POST', as: owner.token, body: { disable_overriding_approvers_per_merge_request: false } });
      }
      expect((await site.api(`${base}/${copied.body.id}`, { method: 'DELETE', as: developer.token })).status).toBe(204);
      expect((await site.api(base, { as: developer.token })).body).toEqual([]);
    } finally {
      await site.api(rules(`/${projectRule.id}`), { method: 'DELETE', as: maintainer.token });
    }
  });
});

describe('reset_approvals', () => {
  it('is for the bot of a project access token only (401 otherwise) and drops every approval (202)', async () => {
    const mr = await openMergeRequest('reset-me');
    expect((await site.api(mrPath(mr.iid, '/approve'), { method: 'POST', as: reviewer.token, body: {} })).status).toBe(201);
    expect((await site.api(mrPath(mr.iid, '/reset_approvals'), { method: 'PUT', as: maintainer.token })).status).toBe(401);
    expect((await site.api(mrPath(mr.iid, '/reset_approvals'), { method: 'PUT', as: null })).status).toBe(401);
    const bot = await site.api(`/projects/${project.id}/access_tokens`, { method: 'POST', as: maintainer.token, body: { name: 'resetter', scopes: ['api'], access_level: 30 } });
    expect(bot.status, bot.text).toBe(201);
    expect((await site.api(mrPath(999999, '/reset_approvals'), { method: 'PUT', as: bot.body.token })).status).toBe(404);
    const reset = await site.api(mrPath(mr.iid, '/reset_approvals'), { method: 'PUT', as: bot.body.token });
    expect(reset.status, reset.text).toBe(202);
    expect((await site.api(mrPath(mr.iid, '/approvals'), { as: owner.token })).body.approved_by).toEqual([]);
    // A reporter bot may not (it cannot update merge requests).
    const reporterBot = (await site.api(`/projects/${project.id}/access_tokens`, { method: 'POST', as: maintainer.token, body: { name: 'weak', scopes: ['api'], access_level: 20 } })).body;
    expect((await site.api(mrPath(mr.iid, '/reset_approvals'), { method: 'PUT', as: reporterBot.token })).status).toBe(401);
  });
});
