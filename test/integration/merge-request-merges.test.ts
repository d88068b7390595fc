import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../src/git/in-repository.js';
import { mergeabilityChecksSettled, scheduleUncheckedMergeRequests } from '../../src/services/merge-requests/mergeability.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startHookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Merging merge requests on real repositories (issue 15, items 5-7 and "Done when"): mergeability
 * computed in the background, accept with its checks and codes, squash, source branch removal,
 * forks, merge when pipeline succeeds, approvals, rebase, and concurrent accepts.
 */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let project: any;

const repo = (projectId = project.id) => repositoryPath(site.dataDir, projectId);
const mrPath = (iid: number, suffix = '', projectId = project.id) => `/projects/${projectId}/merge_requests/${iid}${suffix}`;
const revParse = async (rev: string, projectId = project.id) => (await git(repo(projectId), ['rev-parse', rev])).stdout.trim();
const parentsOf = async (sha: string, projectId = project.id) => (await git(repo(projectId), ['rev-list', '--parents', '-n', '1', sha])).stdout.trim().split(' ').slice(1);

/** One commit on `branch` (created from `start` when given) creating or updating files through the commits API. */
async function commit(branch: string, files: Record<string, string>, options: { start?: string; update?: boolean; message?: string; projectId?: number; as?: string } = {}) {
  const actions = Object.entries(files).map(([path, content]) => ({ action: options.update ? 'update' : 'create', file_path: path, content }));
  const response = await site.api(`/projects/${options.projectId ?? project.id}/repository/commits`, {
    method: 'POST',
    as: options.as ?? owner.token,
    body: { branch, commit_message: options.message ?? `change ${Object.keys(files).join(', ')}`, actions, ...(options.start ? { start_branch: options.start } : {}) },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

async function openMergeRequest(body: Record<string, unknown>, options: { projectId?: number; as?: string } = {}) {
  const response = await site.api(`/projects/${options.projectId ?? project.id}/merge_requests`, { method: 'POST', as: options.as ?? owner.token, body: { target_branch: 'master', ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** Waits for the background check, which a GET never runs. */
async function checked(iid: number, projectId = project.id) {
  return waitFor(
    async () => {
      const shown = await site.api(mrPath(iid, '', projectId), { as: owner.token });
      return shown.body.merge_status !== 'unchecked' && shown.body;
    },
    { timeoutMs: 20_000, message: `merge request !${iid} checked` },
  );
}

const accept = (iid: number, body: Record<string, unknown> = {}, as = developer.token, query = '') => site.api(mrPath(iid, `/merge${query}`), { method: 'PUT', as, body });

beforeAll(async () => {
  site = await startSite();
  [owner, developer, reporter, outsider] = await Promise.all([createUser(site, { name: 'Owner' }), createUser(site, { name: 'Developer' }), createUser(site), createUser(site)]);
  project = await createProject(site, { name: 'merges', visibility: 'private' }, owner.token);
  await addMember(site, 'projects', project.id, developer, 30, owner.token);
  await addMember(site, 'projects', project.id, reporter, 20, owner.token);
  // Developers merge into master here ("Developers can merge"); the first push would otherwise protect it for maintainers only.
  const protection = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'master', push_access_level: 40, merge_access_level: 30 } });
  expect(protection.status, protection.text).toBe(201);
  await commit('master', { 'README.md': 'one\ntwo\nthree\n' });
  // Approvals are tested on their own below; elsewhere none are required (the project default is 0).
});
afterAll(() => site?.stop());

describe('mergeability and accept', () => {
  it('checks a clean pair in the background, writes the merge ref, and merges with a two-parent commit', async () => {
    const source = await commit('clean', { 'clean.txt': 'clean\n' }, { start: 'master', message: 'add clean' });
    const created = await openMergeRequest({ source_branch: 'clean', title: 'Clean change' });
    expect(created.merge_status).toBe('unchecked');
    const shown = await checked(created.iid);
    expect(shown.merge_status).toBe('can_be_merged');
    const mergeRef = await site.api(mrPath(created.iid, '/merge_ref'), { as: reporter.token });
    expect(mergeRef.status).toBe(200);
    expect(await revParse(`refs/merge-requests/${created.iid}/merge`)).toBe(mergeRef.body.commit_id);
    const before = await revParse('refs/heads/master');
    expect(await parentsOf(mergeRef.body.commit_id)).toEqual([before, source]);
    // The merge ref moved nothing the users see.
    expect(await revParse('refs/heads/master')).toBe(before);

    const merged = await accept(created.iid, { merge_commit_message: 'Merge the clean change' });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', merged_by: { id: developer.id }, merge_when_pipeline_succeeds: false });
    expect(merged.body.merged_at).toMatch(/^\d{4}-/);
    const head = await revParse('refs/heads/master');
    expect(merged.body.merge_commit_sha).toBe(head);
    expect(await parentsOf(head)).toEqual([before, source]);
    expect((await git(repo(), ['log', '-1', '--format=%B%x00%cn', head])).stdout).toBe('Merge the clean change\x00Developer\n');
    // The source branch stays unless asked, and a second accept is a 406.
    expect(await revParse('refs/heads/clean')).toBe(source);
    const again = await accept(created.iid);
    expect(again.status).toBe(406);
    const events = await site.api(`/projects/${project.id}/events`, { as: owner.token });
    expect(events.body.find((event: any) => event.target_type === 'MergeRequest' && event.target_iid === created.iid && event.action_name === 'accepted')).toBeTruthy();
    expect(events.body.find((event: any) => event.action_name === 'pushed to' && event.push_data.commit_to === head)).toBeTruthy();
  });

  it('uses GitLab default merge message', async () => {
    await commit('default-message', { 'default.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'default-message', title: 'Default message' });
    const merged = await accept(created.iid);
    expect(merged.status, merged.text).toBe(200);
    const message = (await git(repo(), ['log', '-1', '--format=%B', merged.body.merge_commit_sha])).stdout.trimEnd();
    expect(message).toBe(`Merge branch 'default-message' into 'master'\n\nDefault message\n\nSee merge request ${project.path_with_namespace}!${created.iid}`);
  });

  it('finds a conflicting pair cannot_be_merged and refuses it with 405, the target unchanged', async () => {
    await commit('left', { 'README.md': 'one\nLEFT\nthree\n' }, { start: 'master', update: true });
    await commit('master', { 'README.md': 'one\nMASTER\nthree\n' }, { update: true });
    const created = await openMergeRequest({ source_branch: 'left', title: 'Conflicting' });
    expect((await checked(created.iid)).merge_status).toBe('cannot_be_merged');
    const before = await revParse('refs/heads/master');
    const refused = await accept(created.iid);
    expect(refused.status).toBe(405);
    expect(refused.body).toEqual({ message: 'Branch cannot be merged' });
    expect(await revParse('refs/heads/master')).toBe(before);
    expect((await site.api(mrPath(created.iid, '/merge_ref'), { as: owner.token })).status).toBe(400);
  });

  it("answers 401 to a developer merging into a branch whose protection lets maintainers merge only, and merges the maintainer's accept", async () => {
    expect((await site.api(`/projects/${project.id}/repository/branches`, { method: 'POST', as: owner.token, body: { branch: 'stable', ref: 'master' } })).status).toBe(201);
    const protection = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'stable', push_access_level: 40, merge_access_level: 40 } });
    expect(protection.status, protection.text).toBe(201);
    await commit('for-stable', { 'stable.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'for-stable', target_branch: 'stable', title: 'To stable' });
    await checked(created.iid);
    expect(await accept(created.iid)).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    const merged = await accept(created.iid, {}, owner.token);
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.state).toBe('merged');
  });

  it('answers 401 to a reporter, 404 to an outsider, 409 on a sha mismatch and 405 on a work in progress', async () => {
    await commit('wip', { 'wip.txt': 'x\n' }, { start: 'master' });
    for (const [i, title] of ['WIP: not yet', '[WIP] not yet', 'Draft: not yet'].entries()) {
      expect((await site.api(`/projects/${project.id}/repository/branches`, { method: 'POST', as: owner.token, body: { branch: `wip-target-${i}`, ref: 'master' } })).status).toBe(201);
      const wip = await openMergeRequest({ source_branch: 'wip', target_branch: `wip-target-${i}`, title });
      expect(await accept(wip.iid)).toMatchObject({ status: 405, body: { message: '405 Method Not Allowed' } });
    }
    const head = await commit('checks', { 'checks.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'checks', title: 'Ready' });
    expect((await accept(created.iid, {}, reporter.token)).status).toBe(401);
    expect((await accept(created.iid, {}, outsider.token)).status).toBe(404);
    expect((await accept(created.iid, {}, null as unknown as string)).status).toBe(401);
    const mismatch = await accept(created.iid, {}, developer.token, `?sha=${'a'.repeat(40)}`);
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.message).toBe(`SHA does not match HEAD of source branch: ${head}`);
    const matched = await accept(created.iid, {}, developer.token, `?sha=${head}`);
    expect(matched.status, matched.text).toBe(200);
    expect(matched.body.state).toBe('merged');
  });

  it('answers 406 to an accept and 405 to a cancel of a closed merge request, and merges it once reopened', async () => {
    await commit('closed-one', { 'closed.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'closed-one', title: 'Closed for now' });
    expect((await site.api(mrPath(created.iid), { method: 'PUT', as: owner.token, body: { state_event: 'close' } })).body.state).toBe('closed');
    const before = await revParse('refs/heads/master');
    expect(await accept(created.iid)).toMatchObject({ status: 406, body: { message: '406 Method Not Allowed' } });
    expect((await site.api(mrPath(created.iid, '/cancel_merge_when_pipeline_succeeds'), { method: 'PUT', as: developer.token, body: {} })).status).toBe(405);
    expect(await revParse('refs/heads/master')).toBe(before);
    expect((await site.api(mrPath(created.iid), { method: 'PUT', as: owner.token, body: { state_event: 'reopen' } })).body.state).toBe('opened');
    expect((await accept(created.iid)).body.state).toBe('merged');
  });

  it('squashes into one commit on the target head', async () => {
    await commit('squashed', { 's1.txt': '1\n' }, { start: 'master', message: 'first' });
    await commit('squashed', { 's2.txt': '2\n' }, { message: 'second' });
    const created = await openMergeRequest({ source_branch: 'squashed', title: 'Squash me', squash: true });
    const before = await revParse('refs/heads/master');
    const merged = await accept(created.iid, { squash_commit_message: 'One squashed commit' });
    expect(merged.status, merged.text).toBe(200);
    const head = await revParse('refs/heads/master');
    expect(merged.body.merge_commit_sha).toBe(head);
    expect(await parentsOf(head)).toEqual([before]);
    expect((await git(repo(), ['log', '-1', '--format=%B', head])).stdout.trimEnd()).toBe('One squashed commit');
    expect((await git(repo(), ['log', '-1', '--format=%an|%cn', head])).stdout.trim()).toBe('Owner|Developer');
    expect((await git(repo(), ['show', `${head}:s1.txt`])).stdout).toBe('1\n');
    expect((await git(repo(), ['show', `${head}:s2.txt`])).stdout).toBe('2\n');
  });

  it('removes the source branch after the merge when asked, or when the merge request says so', async () => {
    await commit('removed', { 'removed.txt': 'x\n' }, { start: 'master' });
    const asked = await openMergeRequest({ source_branch: 'removed', title: 'Remove after' });
    const merged = await accept(asked.iid, { should_remove_source_branch: true });
    expect(merged.status, merged.text).toBe(200);
    expect((await site.api(`/projects/${project.id}/repository/branches/removed`, { as: owner.token })).status).toBe(404);
    // The merge request keeps its commits through refs/merge-requests/<iid>/head.
    expect(await parentsOf(merged.body.merge_commit_sha)).toContain(await revParse(`refs/merge-requests/${asked.iid}/head`));

    await commit('forced', { 'forced.txt': 'x\n' }, { start: 'master' });
    const forced = await openMergeRequest({ source_branch: 'forced', title: 'Forced removal', remove_source_branch: true });
    expect((await accept(forced.iid)).status).toBe(200);
    expect((await site.api(`/projects/${project.id}/repository/branches/forced`, { as: owner.token })).status).toBe(404);
  });
});

describe('the unchecked sweep', () => {
  it('checks open merge requests left unchecked (a restart cut their check short)', async () => {
    await commit('swept', { 'swept.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'swept', title: 'Swept' });
    await checked(created.iid);
    await mergeabilityChecksSettled(site.site.ctx);
    site.site.db.prepare("UPDATE merge_requests SET merge_status = 'unchecked' WHERE id = ?").run(created.id);
    expect((await site.api(mrPath(created.iid), { as: owner.token })).body.merge_status).toBe('unchecked');
    scheduleUncheckedMergeRequests(site.site.ctx);
    expect((await checked(created.iid)).merge_status).toBe('can_be_merged');
  });
});

describe('what a merge tells', () => {
  it('fires the merge, approved and unapproved hooks and writes the system notes of approvals and automatic merges', async () => {
    const receiver = await startHookReceiver();
    try {
      const hook = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, merge_requests_events: true, push_events: false } });
      expect(hook.status).toBe(201);
      const head = await commit('hooked', { 'hooked.txt': 'x\n' }, { start: 'master' });
      const created = await openMergeRequest({ source_branch: 'hooked', title: 'Hooked' });
      const actions = () => receiver.received.filter((delivery) => delivery.body.object_attributes?.iid === created.iid).map((delivery) => delivery.body.object_attributes.action);
      expect((await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: developer.token, body: {} })).status).toBe(201);
      expect((await site.api(mrPath(created.iid, '/unapprove'), { method: 'POST', as: developer.token, body: {} })).status).toBe(201);
      await site.api(`/projects/${project.id}/statuses/${head}`, { method: 'POST', as: developer.token, body: { state: 'running', ref: 'hooked', name: 'ci' } });
      expect((await accept(created.iid, { merge_when_pipeline_succeeds: true })).body.merge_when_pipeline_succeeds).toBe(true);
      expect((await site.api(mrPath(created.iid, '/cancel_merge_when_pipeline_succeeds'), { method: 'PUT', as: developer.token, body: {} })).status).toBe(200);
      const merged = await accept(created.iid);
      expect(merged.status, merged.text).toBe(200);
      await waitFor(() => actions().includes('merge'));
      expect(actions()).toEqual(['open', 'approved', 'unapproved', 'merge']);
      const payload = receiver.received.find((delivery) => delivery.body.object_attributes?.action === 'merge' && delivery.body.object_attributes.iid === created.iid)!.body;
      expect(payload).toMatchObject({ object_kind: 'merge_request', user: { username: developer.username }, object_attributes: { state: 'merged', merge_commit_sha: merged.body.merge_commit_sha } });
      const notes = await site.api(mrPath(created.iid, '/notes?sort=asc&per_page=100'), { as: owner.token });
      expect(notes.body.filter((note: any) => note.system).map((note: any) => note.body)).toEqual([
        'approved this merge request',
        'unapproved this merge request',
        `enabled an automatic merge when the pipeline for ${head} succeeds`,
        'canceled the automatic merge',
        'merged',
      ]);
    } finally {
      receiver.close();
    }
  });

  it('refuses a merge with unresolved discussions when the project requires them resolved (405), and merges once resolved', async () => {
    await commit('discussed', { 'discussed.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'discussed', title: 'Discussed' });
    const thread = await site.api(mrPath(created.iid, '/discussions'), { method: 'POST', as: developer.token, body: { body: 'Please look at this' } });
    expect(thread.status, thread.text).toBe(201);
    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', as: owner.token, body: { only_allow_merge_if_all_discussions_are_resolved: true } })).status).toBe(200);
    try {
      expect((await accept(created.iid)).status).toBe(405);
      const resolved = await site.api(mrPath(created.iid, `/discussions/${thread.body.id}?resolved=true`), { method: 'PUT', as: developer.token, body: {} });
      expect(resolved.status, resolved.text).toBe(200);
      const merged = await accept(created.iid);
      expect(merged.status, merged.text).toBe(200);
    } finally {
      await site.api(`/projects/${project.id}`, { method: 'PUT', as: owner.token, body: { only_allow_merge_if_all_discussions_are_resolved: false } });
    }
  });
});

describe('closing issues', () => {
  it('closes the issues the merge request closes, names them in the merge commit, and records who closed them', async () => {
    const issue = await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Bug to fix' } });
    expect(issue.status).toBe(201);
    await commit('fixes', { 'fix.txt': 'fixed\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'fixes', title: 'Fix the bug', description: `Closes #${issue.body.iid}` });
    const closes = await site.api(mrPath(created.iid, '/closes_issues'), { as: developer.token });
    expect(closes.body.map((row: any) => row.iid)).toEqual([issue.body.iid]);
    const merged = await accept(created.iid);
    expect(merged.status, merged.text).toBe(200);
    const message = (await git(repo(), ['log', '-1', '--format=%B', merged.body.merge_commit_sha])).stdout;
    expect(message).toContain(`\n\nCloses #${issue.body.iid}\n\n`);
    const closed = await site.api(`/projects/${project.id}/issues/${issue.body.iid}`, { as: owner.token });
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: { id: developer.id } });
  });
});

describe('fork merge requests', () => {
  let fork: any;
  it('merges a fork branch into its upstream', async () => {
    const forked = await site.api(`/projects/${project.id}/fork`, { method: 'POST', as: developer.token, body: {} });
    expect(forked.status, forked.text).toBe(201);
    fork = forked.body;
    await waitFor(async () => (await site.api(`/projects/${fork.id}`, { as: developer.token })).body.import_status === 'finished', { timeoutMs: 20_000 });
    const head = await commit('from-fork', { 'fork.txt': 'from the fork\n' }, { start: 'master', projectId: fork.id, as: developer.token });
    const created = await openMergeRequest({ source_branch: 'from-fork', target_project_id: project.id, title: 'From the fork' }, { projectId: fork.id, as: developer.token });
    expect(created).toMatchObject({ source_project_id: fork.id, target_project_id: project.id });
    expect((await checked(created.iid)).merge_status).toBe('can_be_merged');
    const before = await revParse('refs/heads/master');
    const merged = await accept(created.iid, {}, owner.token);
    expect(merged.status, merged.text).toBe(200);
    expect(await parentsOf(merged.body.merge_commit_sha)).toEqual([before, head]);
    expect((await git(repo(), ['show', 'refs/heads/master:fork.txt'])).stdout).toBe('from the fork\n');
  });

  it('rebases a fork branch onto its upstream target, in the fork', async () => {
    await commit('fork-behind', { 'fork-behind.txt': 'behind\n' }, { start: 'master', projectId: fork.id, as: developer.token });
    const created = await openMergeRequest({ source_branch: 'fork-behind', target_project_id: project.id, title: 'Behind upstream' }, { projectId: fork.id, as: developer.token });
    await commit('master', { 'upstream-moved.txt': 'moved\n' });
    const target = await revParse('refs/heads/master');
    // The upstream's reporter may read the merge request but not push to the fork: 403.
    expect((await site.api(mrPath(created.iid, '/rebase'), { method: 'PUT', as: reporter.token, body: {} })).status).toBe(403);
    expect((await site.api(mrPath(created.iid, '/rebase'), { method: 'POST', as: developer.token, body: {} })).status).toBe(202);
    await waitFor(async () => (await site.api(mrPath(created.iid), { as: owner.token })).body.rebase_in_progress === false);
    const head = await revParse('refs/heads/fork-behind', fork.id);
    expect(await parentsOf(head, fork.id)).toEqual([target]);
    // The scratch ref that carried the upstream head into the fork is gone.
    expect((await git(repo(fork.id), ['for-each-ref', 'refs/geoforge/'])).stdout).toBe('');
    await waitFor(async () => (await site.api(mrPath(created.iid), { as: owner.token })).body.sha === head);
    const merged = await accept(created.iid, {}, owner.token, `?sha=${head}`);
    expect(merged.status, merged.text).toBe(200);
    expect(await parentsOf(merged.body.merge_commit_sha)).toEqual([target, head]);
  });
});

describe('merge when pipeline succeeds', () => {
  const status = (sha: string, state: string, ref: string) => site.api(`/projects/${project.id}/statuses/${sha}`, { method: 'POST', as: developer.token, body: { state, ref, name: 'ci' } });

  it('waits for an active pipeline and merges when it succeeds', async () => {
    const head = await commit('mwps-ok', { 'mwps-ok.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'mwps-ok', title: 'Merge on success' });
    expect((await status(head, 'running', 'mwps-ok')).status).toBe(201);
    const flagged = await accept(created.iid, { merge_when_pipeline_succeeds: true });
    expect(flagged.status, flagged.text).toBe(200);
    expect(flagged.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    expect((await status(head, 'success', 'mwps-ok')).status).toBe(201);
    const merged = await waitFor(async () => {
      const shown = await site.api(mrPath(created.iid), { as: owner.token });
      return shown.body.state === 'merged' && shown.body;
    });
    expect(merged).toMatchObject({ merge_when_pipeline_succeeds: false, merged_by: { id: developer.id } });
    expect(await revParse('refs/heads/master')).toBe(merged.merge_commit_sha);
  });

  it('stays open and flagged when the pipeline fails; cancel clears the flag with 401/405/406 as the SPEC says', async () => {
    const head = await commit('mwps-failed', { 'mwps-failed.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'mwps-failed', title: 'Merge on success, but fails' });
    await status(head, 'pending', 'mwps-failed');
    expect((await accept(created.iid, { merge_when_pipeline_succeeds: true })).body.merge_when_pipeline_succeeds).toBe(true);
    const before = await revParse('refs/heads/master');
    expect((await status(head, 'failed', 'mwps-failed')).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const shown = await site.api(mrPath(created.iid), { as: owner.token });
    expect(shown.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    expect(await revParse('refs/heads/master')).toBe(before);

    expect((await site.api(mrPath(created.iid, '/cancel_merge_when_pipeline_succeeds'), { method: 'POST', as: reporter.token, body: {} })).status).toBe(401);
    const cancelled = await site.api(mrPath(created.iid, '/cancel_merge_when_pipeline_succeeds'), { method: 'POST', as: developer.token, body: {} });
    expect(cancelled.status).toBe(201);
    expect(cancelled.body.merge_when_pipeline_succeeds).toBe(false);
    const notSet = await site.api(mrPath(created.iid, '/cancel_merge_when_pipeline_succeeds'), { method: 'PUT', as: developer.token, body: {} });
    expect(notSet.status).toBe(406);
    expect((await site.api(mrPath(1, '/cancel_merge_when_pipeline_succeeds'), { method: 'PUT', as: developer.token, body: {} })).status).toBe(405);
  });

  it('merges at once when no pipeline is active', async () => {
    await commit('mwps-none', { 'mwps-none.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'mwps-none', title: 'No pipeline' });
    const merged = await accept(created.iid, { merge_when_pipeline_succeeds: true });
    expect(merged.status, merged.text).toBe(200);
    expect(merged.body.state).toBe('merged');
  });

  it('refuses a merge whose pipeline did not succeed when the project requires it (405)', async () => {
    const head = await commit('ci-required', { 'ci-required.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'ci-required', title: 'CI required' });
    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', as: owner.token, body: { only_allow_merge_if_pipeline_succeeds: true } })).status).toBe(200);
    try {
      await status(head, 'failed', 'ci-required');
      expect((await accept(created.iid)).status).toBe(405);
      // Asking to wait for a pipeline that is no longer running does not get around the requirement.
      expect((await accept(created.iid, { merge_when_pipeline_succeeds: true })).status).toBe(405);
      await status(head, 'running', 'ci-required').then(() => undefined);
      const other = await commit('ci-required', { 'ci-required-2.txt': 'x\n' });
      await status(other, 'success', 'ci-required');
      const merged = await accept(created.iid);
      expect(merged.status, merged.text).toBe(200);
    } finally {
      await site.api(`/projects/${project.id}`, { method: 'PUT', as: owner.token, body: { only_allow_merge_if_pipeline_succeeds: false } });
    }
  });
});

describe('approvals (ee)', () => {
  it('gate the merge until given; the author cannot approve; sha 409; unapprove 404 unless approved', async () => {
    const settings = await site.api(`/projects/${project.id}/approvals`, { method: 'POST', as: owner.token, body: { approvals_before_merge: 1 } });
    expect(settings.status, settings.text).toBe(201);
    expect(settings.body).toMatchObject({ approvals_before_merge: 1, reset_approvals_on_push: true, approvers: [], approver_groups: [] });
    expect((await site.api(`/projects/${project.id}/approvals`, { method: 'POST', as: developer.token, body: { approvals_before_merge: 2 } })).status).toBe(403);
    try {
      const head = await commit('approved', { 'approved.txt': 'x\n' }, { start: 'master' });
      const created = await openMergeRequest({ source_branch: 'approved', title: 'Needs approval' });
      const blocked = await accept(created.iid);
      expect(blocked.status).toBe(405);
      const state = await site.api(mrPath(created.iid, '/approvals'), { as: developer.token });
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ iid: created.iid, project_id: project.id, approvals_required: 1, approvals_missing: 1, approved_by: [], user_has_approved: false, user_can_approve: true });
      expect((await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: owner.token, body: {} })).status).toBe(401);
      expect((await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: reporter.token, body: {} })).status).toBe(401);
      const wrongSha = await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: developer.token, body: { sha: 'b'.repeat(40) } });
      expect(wrongSha.status).toBe(409);
      expect((await site.api(mrPath(created.iid, '/unapprove'), { method: 'POST', as: developer.token, body: {} })).status).toBe(404);
      const approved = await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: developer.token, body: { sha: head } });
      expect(approved.status, approved.text).toBe(201);
      expect(approved.body).toMatchObject({ approvals_required: 1, approvals_left: 0, approved_by: [{ user: { id: developer.id, username: developer.username } }], user_has_approved: true, user_can_approve: false });
      expect((await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: developer.token, body: {} })).status).toBe(401);
      const unapproved = await site.api(mrPath(created.iid, '/unapprove'), { method: 'POST', as: developer.token, body: {} });
      expect(unapproved.status).toBe(201);
      expect(unapproved.body).toMatchObject({ approvals_left: 1, approved_by: [] });
      expect((await accept(created.iid)).status).toBe(405);
      // A push drops the approvals (reset_approvals_on_push is on by default).
      expect((await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: developer.token, body: {} })).status).toBe(201);
      await commit('approved', { 'approved-2.txt': 'y\n' });
      await waitFor(async () => (await site.api(mrPath(created.iid, '/approvals'), { as: owner.token })).body.approvals_missing === 1);
      expect((await site.api(mrPath(created.iid, '/approve'), { method: 'POST', as: developer.token, body: {} })).status).toBe(201);
      const merged = await accept(created.iid);
      expect(merged.status, merged.text).toBe(200);
    } finally {
      await site.api(`/projects/${project.id}/approvals`, { method: 'POST', as: owner.token, body: { approvals_before_merge: 0 } });
    }
  });

  it('lets a merge request require more approvals than its project', async () => {
    await commit('more-approvals', { 'more.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'more-approvals', title: 'More approvals' });
    const changed = await site.api(mrPath(created.iid, '/approvals'), { method: 'POST', as: developer.token, body: { approvals_required: 2 } });
    expect(changed.status, changed.text).toBe(201);
    expect(changed.body).toMatchObject({ approvals_required: 2, approvals_left: 2 });
    expect((await accept(created.iid)).status).toBe(405);
  });
});

describe('rebase', () => {
  it('replays the source branch on the moved target in the background (202), then merges', async () => {
    await commit('to-rebase', { 'rebase-1.txt': '1\n' }, { start: 'master', message: 'rebase one' });
    await commit('to-rebase', { 'rebase-2.txt': '2\n' }, { message: 'rebase two' });
    const created = await openMergeRequest({ source_branch: 'to-rebase', title: 'Rebase me' });
    await commit('master', { 'moved-on.txt': 'x\n' });
    const target = await revParse('refs/heads/master');
    expect((await site.api(mrPath(created.iid, '/rebase'), { method: 'PUT', as: reporter.token, body: {} })).status).toBe(403);
    const started = await site.api(mrPath(created.iid, '/rebase'), { method: 'PUT', as: developer.token, body: {} });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ rebase_in_progress: true });
    await waitFor(async () => (await site.api(mrPath(created.iid), { as: owner.token })).body.rebase_in_progress === false);
    const head = await revParse('refs/heads/to-rebase');
    expect(await revParse(`${head}~2`)).toBe(target);
    expect((await git(repo(), ['log', '--format=%s|%cn', `${target}..${head}`])).stdout.trim().split('\n')).toEqual(['rebase two|Developer', 'rebase one|Developer']);
    // The push the rebase made reaches the merge request (its sha).
    await waitFor(async () => (await site.api(mrPath(created.iid), { as: owner.token })).body.sha === head);
    const merged = await accept(created.iid, {}, developer.token, `?sha=${head}`);
    expect(merged.status, merged.text).toBe(200);
  });
});

describe('concurrent accepts', () => {
  it('merges one merge request once: one 200 and one 406', async () => {
    await commit('race', { 'race.txt': 'x\n' }, { start: 'master' });
    const created = await openMergeRequest({ source_branch: 'race', title: 'Race' });
    const before = await revParse('refs/heads/master');
    const answers = await Promise.all([accept(created.iid), accept(created.iid, {}, owner.token)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 406]);
    const head = await revParse('refs/heads/master');
    expect(await parentsOf(head)).toEqual([before, await revParse('refs/heads/race')]);
  });

  it('merges 20 merge requests into one branch concurrently as a linear chain of 20 merges', async () => {
    const created: any[] = [];
    for (let i = 0; i < 20; i += 1) {
      await commit(`many-${i}`, { [`many-${i}.txt`]: `${i}\n` }, { start: 'master' });
      created.push(await openMergeRequest({ source_branch: `many-${i}`, title: `Many ${i}` }));
    }
    const sources = new Map(await Promise.all(created.map(async (mr: any) => [mr.iid, await revParse(`refs/heads/many-${created.indexOf(mr)}`)] as const)));
    const before = await revParse('refs/heads/master');
    const answers = await Promise.all(created.map((mr: any) => accept(mr.iid)));
    expect(answers.map((answer) => answer.status)).toEqual(new Array(20).fill(200));
    const chain = (await git(repo(), ['rev-list', '--first-parent', `${before}..refs/heads/master`])).stdout.trim().split('\n').reverse();
    expect(chain).toHaveLength(20);
    const byMergeSha = new Map(answers.map((answer) => [answer.body.merge_commit_sha, answer.body.iid]));
    let previous = before;
    for (const sha of chain) {
      const iid = byMergeSha.get(sha);
      expect(iid, `merge ${sha} belongs to an accept`).toBeDefined();
      expect(await parentsOf(sha)).toEqual([previous, sources.get(iid)]);
      previous = sha;
    }
    for (let i = 0; i < 20; i += 1) expect((await git(repo(), ['show', `refs/heads/master:many-${i}.txt`])).stdout).toBe(`${i}\n`);
  }, 120_000);
});

describe('the ce edition', () => {
  it('has no approval routes', async () => {
    const ce = await startSite({ edition: 'ce' });
    try {
      const user = await createUser(ce);
      const own = await createProject(ce, {}, user.token);
      expect((await ce.api(`/projects/${own.id}/approvals`, { as: user.token })).status).toBe(404);
      expect((await ce.api(`/projects/${own.id}/merge_requests/1/approvals`, { as: user.token })).body).toEqual({ error: '404 Not Found' });
    } finally {
      await ce.stop();
    }
  });
});
