import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Merge requests (issue 15, items 1-4; SPEC "Merge requests"; GITLAB-NOTES 2.3) on real
 * repositories: create with its error rows, the MergeRequest entity, diff versions recorded on
 * create and on every push, and the refs/merge-requests/<iid>/head the target keeps.
 */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let outsider: TestUser;
let project: any;

/** Commits `files` on `branch` (created from `start` when new) through the commits API. */
async function commit(projectId: number, branch: string, files: Record<string, string>, options: { start?: string; message?: string; as?: string } = {}) {
  const ref = encodeURIComponent(options.start ?? branch);
  const actions = await Promise.all(
    Object.entries(files).map(async ([path, content]) => {
      const found = await site.api(`/projects/${projectId}/repository/files/${encodeURIComponent(path)}?ref=${ref}`, { as: options.as ?? owner.token });
      return { action: found.status === 200 ? 'update' : 'create', file_path: path, content };
    }),
  );
  const response = await site.api(`/projects/${projectId}/repository/commits`, {
    method: 'POST',
    body: { branch, commit_message: options.message ?? `change ${Object.keys(files).join(', ')}`, actions, ...(options.start ? { start_branch: options.start } : {}) },
    as: options.as ?? owner.token,
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

async function newMergeRequest(body: Record<string, unknown>, as = owner.token, projectId = project.id) {
  const response = await site.api(`/projects/${projectId}/merge_requests`, { method: 'POST', body, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

beforeAll(async () => {
  site = await startSite();
  [owner, developer, reporter, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site)]);
  project = await createProject(site, { name: 'mr-main', visibility: 'private' }, owner.token);
  await addMember(site, 'projects', project.id, developer, 30, owner.token);
  await addMember(site, 'projects', project.id, reporter, 20, owner.token);
  await commit(project.id, 'master', { 'README.md': 'hello\n' });
});
afterAll(() => site.stop());

describe('creating a merge request', () => {
  it('answers 201 with the MergeRequest entity and records the first diff version', async () => {
    const head = await commit(project.id, 'feature-a', { 'a.txt': 'one\ntwo\n' }, { start: 'master', message: 'Add a.txt\n\nbody' });
    const created = await newMergeRequest({ source_branch: 'feature-a', target_branch: 'master', title: 'Add a', description: 'A change', labels: 'x,y', assignee_id: developer.id });
    expect(created).toMatchObject({
      iid: 1,
      project_id: project.id,
      source_project_id: project.id,
      target_project_id: project.id,
      title: 'Add a',
      description: 'A change',
      state: 'opened',
      source_branch: 'feature-a',
      target_branch: 'master',
      labels: ['x', 'y'],
      author: { id: owner.id },
      assignee: { id: developer.id },
      merge_status: 'unchecked',
      sha: head.id,
      merge_commit_sha: null,
      work_in_progress: false,
      subscribed: true,
      changes_count: '1',
      user_notes_count: 0,
      upvotes: 0,
      downvotes: 0,
      should_remove_source_branch: null,
      force_remove_source_branch: false,
      squash: false,
      discussion_locked: null,
      web_url: `${site.url}/${project.path_with_namespace}/merge_requests/1`,
      time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      merged_by: null,
      merged_at: null,
      closed_by: null,
      closed_at: null,
      diff_refs: { head_sha: head.id, base_sha: expect.stringMatching(/^[0-9a-f]{40}$/), start_sha: expect.stringMatching(/^[0-9a-f]{40}$/) },
    });
    const shown = await site.api(`/projects/${project.id}/merge_requests/1`, { as: developer.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ iid: 1, sha: head.id, subscribed: true, changes_count: '1' });
  });

  it('refuses a missing source branch (400 naming it), the same branch (422) and an open duplicate (409)', async () => {
    const missing = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: 'nope', target_branch: 'master', title: 't' }, as: owner.token });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain('nope');
    const same = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: 'master', target_branch: 'master', title: 't' }, as: owner.token });
    expect(same.status).toBe(422);
    const duplicate = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: 'feature-a', target_branch: 'master', title: 'again' }, as: owner.token });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.message).toContain('Add a');
    const untitled = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: 'feature-a', target_branch: 'master' }, as: owner.token });
    expect(untitled.status).toBe(400);
    expect(untitled.body.message).toBe('title is missing');
  });

  it('applies the SPEC rule for approvals_before_merge and subscribes the assignee', async () => {
    const approvals = await createProject(site, { name: 'mr-approvals', approvals_before_merge: 2 }, owner.token);
    await commit(approvals.id, 'master', { 'README.md': 'a\n' });
    for (const branch of ['a1', 'a2', 'a3']) await commit(approvals.id, branch, { [`${branch}.txt`]: 'x\n' }, { start: 'master' });
    const inherited = await newMergeRequest({ source_branch: 'a1', target_branch: 'master', title: 'inherits' }, owner.token, approvals.id);
    expect(inherited.approvals_before_merge).toBeNull();
    const lower = await newMergeRequest({ source_branch: 'a2', target_branch: 'master', title: 'lower', approvals_before_merge: 1 }, owner.token, approvals.id);
    expect(lower.approvals_before_merge).toBeNull();
    const higher = await newMergeRequest({ source_branch: 'a3', target_branch: 'master', title: 'higher', approvals_before_merge: 3, assignee_id: owner.id }, owner.token, approvals.id);
    expect(higher.approvals_before_merge).toBe(3);
    await commit(project.id, 'feature-s', { 's.txt': 's\n' }, { start: 'master' });
    const assigned = await newMergeRequest({ source_branch: 'feature-s', target_branch: 'master', title: 'Assigned', assignee_id: developer.id });
    expect((await site.api(`/projects/${project.id}/merge_requests/${assigned.iid}`, { as: developer.token })).body.subscribed).toBe(true);
    expect((await site.api(`/projects/${project.id}/merge_requests/${assigned.iid}`, { as: reporter.token })).body.subscribed).toBe(false);
  });

  it('refuses merge requests from a project with them switched off (403) and answers 403 to their readers', async () => {
    const off = await createProject(site, { name: 'mr-off', merge_requests_enabled: false }, owner.token);
    await commit(off.id, 'master', { 'README.md': 'off\n' });
    await commit(off.id, 'topic', { 't.txt': 't\n' }, { start: 'master' });
    const refused = await site.api(`/projects/${off.id}/merge_requests`, { method: 'POST', body: { source_branch: 'topic', target_branch: 'master', title: 't' }, as: owner.token });
    expect(refused.status).toBe(403);
    expect((await site.api(`/projects/${off.id}/merge_requests`, { as: owner.token })).status).toBe(403);
  });

  it('answers 401 anonymously, 404 to outsiders of a private project and 403 to reporters', async () => {
    const body = { source_branch: 'feature-a', target_branch: 'master', title: 't' };
    expect((await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body, as: null })).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body, as: outsider.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body, as: reporter.token })).status).toBe(403);
    expect((await site.api(`/projects/${project.id}/merge_requests/1`, { as: outsider.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/merge_requests/999`, { as: owner.token })).status).toBe(404);
  });
});

/** Pushes a new branch from master with `count` new files, through git smart HTTP (the commits API writes one file per git call). */
async function pushFiles(target: any, branch: string, count: number): Promise<void> {
  const { mkdtemp, mkdir, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const { gitClient, remoteUrl } = await import('../helpers/git.js');
  const home = await mkdtemp(path.join(tmpdir(), 'geoforge-mr-'));
  const git = gitClient(home, 120_000);
  const work = path.join(home, 'work');
  try {
    await git(['clone', '--quiet', remoteUrl(site.url, target, owner), work]);
    await git(['checkout', '--quiet', '-b', branch], work);
    await mkdir(path.join(work, 'many'), { recursive: true });
    for (let i = 0; i < count; i++) await writeFile(path.join(work, 'many', `f${i}.txt`), `${i}\n`);
    await git(['add', '-A'], work);
    await git(['commit', '--quiet', '-m', `${count} files`], work);
    await git(['push', '--quiet', 'origin', branch], work);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/** The sha a ref names in the project's repository on disk, or null. */
async function refOf(projectId: number, ref: string): Promise<string | null> {
  const { runGit } = await import('../../src/git/cli.js');
  const { repositoryPath } = await import('../../src/storage/layout.js');
  try {
    return (await runGit(['--git-dir', repositoryPath(site.dataDir, projectId), 'rev-parse', '--verify', '--quiet', ref])).stdout.trim();
  } catch {
    return null;
  }
}

describe('diff versions and refs/merge-requests/<iid>/head', () => {
  it('records a version per push (newest first), the commits newest first and the changes, and keeps the head ref', async () => {
    const first = await commit(project.id, 'feature-v', { 'v.txt': 'v1\n' }, { start: 'master', message: 'v one' });
    const mr = await newMergeRequest({ source_branch: 'feature-v', target_branch: 'master', title: 'Versions' });
    expect(await refOf(project.id, `refs/merge-requests/${mr.iid}/head`)).toBe(first.id);
    const second = await commit(project.id, 'feature-v', { 'v.txt': 'v2\n', 'w.txt': 'w\n' }, { message: 'v two' });
    const versions = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions`, { as: developer.token });
    expect(versions.status).toBe(200);
    expect(versions.body).toHaveLength(2);
    expect(versions.body[0]).toEqual({
      id: expect.any(Number),
      head_commit_sha: second.id,
      base_commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      start_commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      created_at: expect.any(String),
      merge_request_id: mr.id,
      state: 'collected',
      real_size: '2',
    });
    expect(versions.body[1]).toMatchObject({ head_commit_sha: first.id, real_size: '1' });
    expect(await refOf(project.id, `refs/merge-requests/${mr.iid}/head`)).toBe(second.id);

    const one = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions/${versions.body[1].id}`, { as: developer.token });
    expect(one.status).toBe(200);
    expect(one.body.commits.map((c: any) => c.id)).toEqual([first.id]);
    expect(one.body.diffs).toEqual([expect.objectContaining({ new_path: 'v.txt', new_file: true, diff: expect.stringContaining('+v1') })]);
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions/999999`, { as: developer.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions/abc`, { as: developer.token })).status).toBe(400);

    const commits = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/commits`, { as: developer.token });
    expect(commits.body.map((c: any) => c.id)).toEqual([second.id, first.id]);
    expect(commits.body[0]).toMatchObject({ short_id: second.id.slice(0, 8), title: 'v two', message: 'v two', author_name: expect.any(String), parent_ids: [first.id] });
    expect(commits.headers['x-total']).toBe('2');

    const changes = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/changes`, { as: developer.token });
    expect(changes.body).toMatchObject({ iid: mr.iid, changes_count: '2', sha: second.id });
    expect(changes.body.changes.map((c: any) => c.new_path).sort()).toEqual(['v.txt', 'w.txt']);
    expect(changes.body.changes[0]).toEqual(expect.objectContaining({ old_path: expect.any(String), a_mode: expect.any(String), b_mode: '100644', renamed_file: false, deleted_file: false }));
    // A status on the head commit makes a pipeline: the merge request lists it and shows it as its head pipeline.
    expect((await site.api(`/projects/${project.id}/statuses/${second.id}`, { method: 'POST', body: { state: 'running', name: 'ci' }, as: developer.token })).status).toBe(201);
    const pipelines = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/pipelines`, { as: developer.token });
    expect(pipelines.body).toEqual([expect.objectContaining({ sha: second.id, status: 'running' })]);
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}`, { as: developer.token })).body.pipeline).toMatchObject({ sha: second.id, status: 'running' });
    const diffs = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/diffs?per_page=1`, { as: developer.token });
    expect(diffs.body).toHaveLength(1);
    expect(diffs.headers['x-total']).toBe('2');
  });

  it('records a version for a force-push, and keeps commits and changes once the source branch is deleted', async () => {
    const first = await commit(project.id, 'feature-f', { 'f.txt': 'f1\n' }, { start: 'master' });
    const mr = await newMergeRequest({ source_branch: 'feature-f', target_branch: 'master', title: 'Force' });
    // A force-push: the branch goes and comes back at an unrelated commit of another branch.
    const other = await commit(project.id, 'feature-g', { 'g.txt': 'g\n' }, { start: 'master' });
    expect((await site.api(`/projects/${project.id}/repository/branches/feature-f`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`/projects/${project.id}/repository/branches`, { method: 'POST', body: { branch: 'feature-f', ref: 'feature-g' }, as: owner.token })).status).toBe(201);
    const versions = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions`, { as: owner.token });
    expect(versions.body.map((v: any) => v.head_commit_sha)).toEqual([other.id, first.id]);
    expect(await refOf(project.id, `refs/merge-requests/${mr.iid}/head`)).toBe(other.id);

    expect((await site.api(`/projects/${project.id}/repository/branches/feature-f`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    const shown = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}`, { as: owner.token });
    expect(shown.body).toMatchObject({ state: 'opened', sha: other.id });
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/commits`, { as: owner.token })).body.map((c: any) => c.id)).toEqual([other.id]);
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/changes`, { as: owner.token })).body.changes.map((c: any) => c.new_path)).toEqual(['g.txt']);
    expect(await refOf(project.id, `refs/merge-requests/${mr.iid}/head`)).toBe(other.id);
    // Closed, it cannot be reopened while its source branch is gone (GitLab's reopenable?).
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token })).body.state).toBe('closed');
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'PUT', body: { state_event: 'reopen' }, as: owner.token })).body.state).toBe('closed');
  });

  it('records versions for pushes and a force-push over git smart HTTP', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { gitClient, remoteUrl } = await import('../helpers/git.js');
    const home = await mkdtemp(path.join(tmpdir(), 'geoforge-mr-push-'));
    const git = gitClient(home, 60_000);
    const work = path.join(home, 'work');
    try {
      await git(['clone', '--quiet', remoteUrl(site.url, project, owner), work]);
      await git(['checkout', '--quiet', '-b', 'pushed'], work);
      await writeFile(path.join(work, 'pushed.txt'), 'one\n');
      await git(['add', '-A'], work);
      await git(['commit', '--quiet', '-m', 'first push'], work);
      await git(['push', '--quiet', 'origin', 'pushed'], work);
      const mr = await newMergeRequest({ source_branch: 'pushed', target_branch: 'master', title: 'Pushed over HTTP' });
      await writeFile(path.join(work, 'pushed.txt'), 'two\n');
      await git(['commit', '--quiet', '-am', 'second push'], work);
      await git(['push', '--quiet', 'origin', 'pushed'], work);
      await git(['commit', '--quiet', '--amend', '-m', 'second push, rewritten'], work);
      await git(['push', '--quiet', '--force', 'origin', 'pushed'], work);
      const head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
      const versions = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions`, { as: owner.token });
      expect(versions.body).toHaveLength(3);
      expect(versions.body[0].head_commit_sha).toBe(head);
      const commits = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/commits`, { as: owner.token });
      expect(commits.body.map((c: any) => c.title)).toEqual(['second push, rewritten', 'first push']);
      expect(await refOf(project.id, `refs/merge-requests/${mr.iid}/head`)).toBe(head);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('marks a version over the limits as overflow, with real_size 1000+, and collapses a file over 100 KiB', async () => {
    await pushFiles(project, 'feature-big', 1001);
    const mr = await newMergeRequest({ source_branch: 'feature-big', target_branch: 'master', title: 'Big' });
    expect(mr.changes_count).toBe('1000+');
    const versions = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/versions`, { as: owner.token });
    expect(versions.body[0]).toMatchObject({ state: 'overflow', real_size: '1000+' });
    const changes = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/changes`, { as: owner.token });
    expect(changes.body.changes).toHaveLength(1000);

    await commit(project.id, 'feature-huge', { 'huge.txt': 'x'.repeat(120 * 1024) + '\n', 'small.txt': 's\n' }, { start: 'master' });
    const huge = await newMergeRequest({ source_branch: 'feature-huge', target_branch: 'master', title: 'Huge' });
    const hugeChanges = await site.api(`/projects/${project.id}/merge_requests/${huge.iid}/changes`, { as: owner.token });
    expect(hugeChanges.body.changes.find((c: any) => c.new_path === 'huge.txt')).toMatchObject({ diff: '', too_large: true, collapsed: true });
    expect(hugeChanges.body.changes.find((c: any) => c.new_path === 'small.txt')).toMatchObject({ too_large: false, diff: expect.stringContaining('+s') });
  });
});

describe('lists', () => {
  let listProject: any;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    listProject = await createProject(site, { name: 'mr-lists', visibility: 'private' }, owner.token);
    await addMember(site, 'projects', listProject.id, developer, 30, owner.token);
    await addMember(site, 'projects', listProject.id, reporter, 20, owner.token);
    await commit(listProject.id, 'master', { 'README.md': 'x\n' });
    const milestone = await site.api(`/projects/${listProject.id}/milestones`, { method: 'POST', body: { title: 'v1' }, as: owner.token });
    for (const [name, body, as] of [
      ['bug', { title: 'Fix the bug', labels: 'bug', milestone_id: milestone.body.id, assignee_id: developer.id }, owner.token],
      ['wip', { title: 'WIP: half done', description: 'needle in here' }, developer.token],
      ['draft', { title: 'Draft: other', labels: 'bug,ui' }, developer.token],
      ['plain', { title: 'Plain' }, owner.token],
    ] as const) {
      await commit(listProject.id, `b-${name}`, { [`${name}.txt`]: `${name}\n` }, { start: 'master' });
      ids[name] = (await newMergeRequest({ source_branch: `b-${name}`, target_branch: 'master', ...body }, as, listProject.id)).iid;
    }
    await site.api(`/projects/${listProject.id}/merge_requests/${ids.plain}`, { method: 'PUT', body: { state_event: 'close' }, as: owner.token });
    await site.api(`/projects/${listProject.id}/merge_requests/${ids.bug}/award_emoji`, { method: 'POST', body: { name: 'thumbsup' }, as: developer.token });
  });

  const iidsOf = async (query: string, as = owner.token) => {
    const response = await site.api(`/projects/${listProject.id}/merge_requests${query}`, { as });
    expect(response.status, response.text).toBe(200);
    return response.body.map((mr: any) => mr.iid);
  };

  it('lists newest first as MergeRequestBasic with pagination headers, and filters by every SPEC parameter', async () => {
    const all = await site.api(`/projects/${listProject.id}/merge_requests?per_page=2`, { as: reporter.token });
    expect(all.status, all.text).toBe(200);
    expect(all.body.map((mr: any) => mr.iid)).toEqual([ids.plain, ids.draft]);
    expect(all.headers['x-total']).toBe('4');
    expect(all.headers['x-next-page']).toBe('2');
    expect(all.body[0]).not.toHaveProperty('subscribed');
    expect(all.body[0]).not.toHaveProperty('changes_count');
    expect(await iidsOf('?state=opened')).toEqual([ids.draft, ids.wip, ids.bug]);
    expect(await iidsOf('?state=closed')).toEqual([ids.plain]);
    expect(await iidsOf('?state=merged')).toEqual([]);
    expect(await iidsOf('?state=all&sort=asc')).toEqual([ids.bug, ids.wip, ids.draft, ids.plain]);
    // The closed one was updated last.
    expect((await iidsOf('?order_by=updated_at'))[0]).toBe(ids.plain);
    expect(await iidsOf('?labels=bug')).toEqual([ids.draft, ids.bug]);
    expect(await iidsOf('?labels=bug,ui')).toEqual([ids.draft]);
    expect(await iidsOf('?labels=None')).toEqual([ids.plain, ids.wip]);
    expect(await iidsOf('?labels=nosuch')).toEqual([]);
    expect(await iidsOf('?milestone=v1')).toEqual([ids.bug]);
    expect(await iidsOf('?milestone=None')).toEqual([ids.plain, ids.draft, ids.wip]);
    expect(await iidsOf(`?author_id=${developer.id}`)).toEqual([ids.draft, ids.wip]);
    expect(await iidsOf(`?assignee_id=${developer.id}`)).toEqual([ids.bug]);
    expect(await iidsOf('?assignee_id=None')).toEqual([ids.plain, ids.draft, ids.wip]);
    expect(await iidsOf('?my_reaction_emoji=thumbsup', developer.token)).toEqual([ids.bug]);
    expect(await iidsOf('?search=needle')).toEqual([ids.wip]);
    expect(await iidsOf('?source_branch=b-plain')).toEqual([ids.plain]);
    expect(await iidsOf('?target_branch=master&state=opened')).toEqual([ids.draft, ids.wip, ids.bug]);
    expect(await iidsOf('?wip=yes')).toEqual([ids.draft, ids.wip]);
    expect(await iidsOf('?wip=no')).toEqual([ids.plain, ids.bug]);
    expect(await iidsOf(`?iids[]=${ids.bug}&iids[]=${ids.plain}`)).toEqual([ids.plain, ids.bug]);
    expect(await iidsOf('?created_after=2000-01-01T00:00:00Z&created_before=2100-01-01T00:00:00Z')).toHaveLength(4);
    expect(await iidsOf('?created_after=2100-01-01T00:00:00Z')).toEqual([]);
    expect(await iidsOf(`?scope=created-by-me`, developer.token)).toEqual([ids.draft, ids.wip]);
    const milestones = await site.api(`/projects/${listProject.id}/milestones`, { as: owner.token });
    const ofMilestone = await site.api(`/projects/${listProject.id}/milestones/${milestones.body[0].id}/merge_requests`, { as: reporter.token });
    expect(ofMilestone.body.map((mr: any) => mr.iid)).toEqual([ids.bug]);
    const labels = await site.api(`/projects/${listProject.id}/labels?with_counts=true`, { as: owner.token });
    expect(labels.body.find((label: any) => label.name === 'bug').open_merge_requests_count).toBe(2);
    expect(labels.body.find((label: any) => label.name === 'ui').open_merge_requests_count).toBe(1);
    const simple = await site.api(`/projects/${listProject.id}/merge_requests?view=simple&per_page=1`, { as: owner.token });
    expect(Object.keys(simple.body[0]).sort()).toEqual(['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
  });

  it('rejects bad filter values with 400 and hides the list from non-readers', async () => {
    expect((await site.api(`/projects/${listProject.id}/merge_requests?state=bogus`, { as: owner.token })).status).toBe(400);
    expect((await site.api(`/projects/${listProject.id}/merge_requests?order_by=title`, { as: owner.token })).status).toBe(400);
    expect((await site.api(`/projects/${listProject.id}/merge_requests?wip=maybe`, { as: owner.token })).status).toBe(400);
    expect((await site.api(`/projects/${listProject.id}/merge_requests`, { as: null })).status).toBe(401);
    expect((await site.api(`/projects/${listProject.id}/merge_requests`, { as: outsider.token })).status).toBe(404);
  });

  it('serves the global list (created by the caller by default, assigned-to-me, all) and the group list', async () => {
    const mine = await site.api('/merge_requests?state=all', { as: developer.token });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.filter((mr: any) => mr.project_id === listProject.id).map((mr: any) => mr.iid)).toEqual([ids.draft, ids.wip]);
    expect(mine.body.every((mr: any) => mr.author.id === developer.id)).toBe(true);
    const assigned = await site.api('/merge_requests?scope=assigned-to-me', { as: developer.token });
    expect(assigned.body.filter((mr: any) => mr.project_id === listProject.id).map((mr: any) => mr.iid)).toEqual([ids.bug]);
    expect(assigned.body.every((mr: any) => mr.assignee.id === developer.id)).toBe(true);
    const all = await site.api(`/merge_requests?scope=all&state=all&search=needle`, { as: reporter.token });
    expect(all.body.map((mr: any) => mr.title)).toEqual(['WIP: half done']);
    expect((await site.api('/merge_requests?scope=all', { as: outsider.token })).body.filter((mr: any) => mr.project_id === listProject.id)).toEqual([]);
    expect((await site.api('/merge_requests', { as: null })).status).toBe(401);

    const group = await site.api('/groups', { method: 'POST', body: { name: 'mr-group', path: 'mr-group' }, as: owner.token });
    const inGroup = await createProject(site, { name: 'in-group', namespace_id: group.body.id }, owner.token);
    await commit(inGroup.id, 'master', { 'README.md': 'g\n' });
    await commit(inGroup.id, 'topic', { 't.txt': 't\n' }, { start: 'master' });
    const groupMr = await newMergeRequest({ source_branch: 'topic', target_branch: 'master', title: 'In a group' }, owner.token, inGroup.id);
    const groupList = await site.api(`/groups/${group.body.id}/merge_requests`, { as: owner.token });
    expect(groupList.body.map((mr: any) => mr.id)).toEqual([groupMr.id]);
    expect((await site.api(`/groups/${group.body.id}/merge_requests`, { as: outsider.token })).status).toBe(404);
  });
});

describe('editing and deleting', () => {
  it('needs at least one attribute (400), edits title, labels, assignee and locking, and unassigns by 0 or empty', async () => {
    await commit(project.id, 'feature-e', { 'e.txt': 'e\n' }, { start: 'master' });
    const mr = await newMergeRequest({ source_branch: 'feature-e', target_branch: 'master', title: 'Edit me', labels: ['a', 'b'], assignee_id: developer.id });
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const empty = await site.api(url, { method: 'PUT', body: {}, as: owner.token });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toContain('at least one parameter must be provided');
    const edited = await site.api(url, { method: 'PUT', body: { title: 'Edited', labels: ['c'], discussion_locked: true, remove_source_branch: true, squash: true }, as: developer.token });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ title: 'Edited', labels: ['c'], discussion_locked: true, force_remove_source_branch: true, squash: true });
    expect((await site.api(url, { method: 'PUT', body: { assignee_id: 0 }, as: owner.token })).body.assignee).toBeNull();
    await site.api(url, { method: 'PUT', body: { assignee_id: reporter.id }, as: owner.token });
    expect((await site.api(`${url}?assignee_id=`, { method: 'PUT', as: owner.token })).body.assignee).toBeNull();
    expect((await site.api(url, { method: 'PUT', body: { labels: '' }, as: owner.token })).body.labels).toEqual([]);
    expect((await site.api(url, { method: 'PUT', body: { title: 'x' }, as: reporter.token })).status).toBe(403);
    expect((await site.api(url, { method: 'PUT', body: { title: '' }, as: owner.token })).status).toBe(400);
  });

  it('closes (closed_by, closed_at) and reopens to opened, and a target branch change resets mergeability with a new version', async () => {
    await commit(project.id, 'feature-c', { 'c.txt': 'c\n' }, { start: 'master' });
    await site.api(`/projects/${project.id}/repository/branches`, { method: 'POST', body: { branch: 'stable', ref: 'master' }, as: owner.token });
    const mr = await newMergeRequest({ source_branch: 'feature-c', target_branch: 'master', title: 'Close me' });
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const closed = await site.api(url, { method: 'PUT', body: { state_event: 'close' }, as: developer.token });
    expect(closed.body).toMatchObject({ state: 'closed', closed_by: { id: developer.id }, closed_at: expect.any(String) });
    const reopened = await site.api(url, { method: 'PUT', body: { state_event: 'reopen' }, as: developer.token });
    expect(reopened.body).toMatchObject({ state: 'opened', closed_by: null, closed_at: null });
    site.site.db.prepare("UPDATE merge_requests SET merge_status = 'can_be_merged' WHERE id = ?").run(mr.id);
    const retargeted = await site.api(url, { method: 'PUT', body: { target_branch: 'stable' }, as: developer.token });
    expect(retargeted.body).toMatchObject({ target_branch: 'stable', merge_status: 'unchecked' });
    expect((await site.api(`${url}/versions`, { as: owner.token })).body.length).toBeGreaterThanOrEqual(2);
    expect((await site.api(url, { method: 'PUT', body: { target_branch: 'nope' }, as: developer.token })).status).toBe(400);
  });

  it('deletes for owners (204) and refuses developers (403)', async () => {
    await commit(project.id, 'feature-d', { 'd.txt': 'd\n' }, { start: 'master' });
    const mr = await newMergeRequest({ source_branch: 'feature-d', target_branch: 'master', title: 'Delete me' });
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await site.api(url, { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(url, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(url, { as: owner.token })).status).toBe(404);
    expect(site.site.db.prepare('SELECT count(*) AS n FROM merge_request_diffs WHERE merge_request_id = ?').get(mr.id)).toEqual({ n: 0 });
  });
});

describe('participants, subscriptions, todos and closing issues', () => {
  it('lists participants, subscribes and unsubscribes with 304s, and marks a todo once (then 304)', async () => {
    await commit(project.id, 'feature-p', { 'p.txt': 'p\n' }, { start: 'master' });
    const mr = await newMergeRequest({ source_branch: 'feature-p', target_branch: 'master', title: 'People', description: `cc @${reporter.username}`, assignee_id: developer.id });
    const url = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const participants = await site.api(`${url}/participants`, { as: reporter.token });
    expect(participants.body.map((user: any) => user.id)).toEqual([owner.id, developer.id, reporter.id]);
    expect((await site.api(`${url}/subscribe`, { method: 'POST', as: owner.token })).status).toBe(304);
    const unsubscribed = await site.api(`${url}/unsubscribe`, { method: 'POST', as: owner.token });
    expect(unsubscribed).toMatchObject({ status: 201, body: { subscribed: false } });
    expect((await site.api(`${url}/unsubscribe`, { method: 'POST', as: owner.token })).status).toBe(304);
    expect((await site.api(`${url}/subscribe`, { method: 'POST', as: owner.token })).body.subscribed).toBe(true);
    const todo = await site.api(`${url}/todo`, { method: 'POST', as: owner.token });
    expect(todo.status).toBe(201);
    expect(todo.body).toMatchObject({ action_name: 'marked', target_type: 'MergeRequest', state: 'pending', body: 'People', target: { iid: mr.iid }, target_url: `${site.url}/${project.path_with_namespace}/merge_requests/${mr.iid}` });
    expect((await site.api(`${url}/todo`, { method: 'POST', as: owner.token })).status).toBe(304);
    // The assignee and the mentioned reporter got todos when it opened.
    expect((await site.api('/todos?type=MergeRequest', { as: developer.token })).body.map((t: any) => [t.action_name, t.target.iid])).toContainEqual(['assigned', mr.iid]);
    expect((await site.api('/todos?type=MergeRequest', { as: reporter.token })).body.map((t: any) => [t.action_name, t.target.iid])).toContainEqual(['mentioned', mr.iid]);
    expect((await site.api(`/projects/${project.id}/merge_requests/9999/todo`, { method: 'POST', as: owner.token })).body).toEqual({ message: '404 Merge Request Not Found' });
  });

  it('lists the issues a merge request closes (title, description, commits; default branch only) and the issue answers closed_by', async () => {
    const issue = (n: string) => site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: n }, as: owner.token }).then((r) => r.body);
    const [one, two, three, other] = await Promise.all([issue('one'), issue('two'), issue('three'), issue('other')]);
    await commit(project.id, 'feature-close', { 'cl.txt': 'c\n' }, { start: 'master', message: `Resolves #${three.iid}` });
    const mr = await newMergeRequest({ source_branch: 'feature-close', target_branch: 'master', title: `Fixes #${one.iid}`, description: `Closes #${two.iid}, mentions #${other.iid}` });
    const closes = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/closes_issues`, { as: developer.token });
    expect(closes.body.map((i: any) => i.iid).sort()).toEqual([one.iid, two.iid, three.iid].sort());
    const closedBy = await site.api(`/projects/${project.id}/issues/${two.iid}/closed_by`, { as: developer.token });
    expect(closedBy.body.map((m: any) => m.iid)).toEqual([mr.iid]);
    expect((await site.api(`/projects/${project.id}/issues/${other.iid}/closed_by`, { as: developer.token })).body).toEqual([]);
    // What the merge code calls after a merge: the open issues it closes, closed by the merger (closed_by).
    const { closeIssuesOfMergedRequest } = await import('../../src/services/merge-requests/closing-issues.js');
    const { findUserById } = await import('../../src/db/tables/users.js');
    const { findMergeRequestById } = await import('../../src/db/tables/merge-requests.js');
    const merger = { user: findUserById(site.site.db, developer.id)!, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
    const closed = closeIssuesOfMergedRequest(site.site.ctx, merger, findMergeRequestById(site.site.db, mr.id)!);
    expect(closed.map((i) => i.iid).sort()).toEqual([one.iid, two.iid, three.iid].sort());
    const twoNow = await site.api(`/projects/${project.id}/issues/${two.iid}`, { as: owner.token });
    expect(twoNow.body).toMatchObject({ state: 'closed', closed_by: { id: developer.id } });
    expect((await site.api(`/projects/${project.id}/issues/${other.iid}`, { as: owner.token })).body.state).toBe('opened');
    // Retargeted off the default branch, it closes nothing.
    await site.api(`/projects/${project.id}/repository/branches`, { method: 'POST', body: { branch: 'release', ref: 'master' }, as: owner.token });
    await site.api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'PUT', body: { target_branch: 'release' }, as: owner.token });
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/closes_issues`, { as: developer.token })).body).toEqual([]);
  });
});

describe('fork merge requests', () => {
  it('opens a merge request from a fork into its upstream (commits fetched into the upstream), and refuses an unrelated target (422)', async () => {
    const upstream = await createProject(site, { name: 'upstream', visibility: 'public' }, owner.token);
    await commit(upstream.id, 'master', { 'README.md': 'up\n' });
    const fork = await site.api(`/projects/${upstream.id}/fork`, { method: 'POST', body: {}, as: outsider.token });
    expect(fork.status, fork.text).toBe(201);
    await waitFor(
      async () => {
        const response = await site.api(`/projects/${fork.body.id}`, { as: outsider.token });
        return response.body.import_status === 'finished' ? response.body : null;
      },
      { timeoutMs: 20_000 },
    );
    const head = await commit(fork.body.id, 'from-fork', { 'fork.txt': 'from the fork\n' }, { start: 'master', as: outsider.token });
    const created = await site.api(`/projects/${fork.body.id}/merge_requests`, { method: 'POST', body: { source_branch: 'from-fork', target_branch: 'master', title: 'From a fork', target_project_id: upstream.id }, as: outsider.token });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ project_id: upstream.id, source_project_id: fork.body.id, target_project_id: upstream.id, sha: head.id, changes_count: '1' });
    expect(await refOf(upstream.id, `refs/merge-requests/${created.body.iid}/head`)).toBe(head.id);
    const listed = await site.api(`/projects/${upstream.id}/merge_requests`, { as: owner.token });
    expect(listed.body.map((mr: any) => mr.id)).toContain(created.body.id);
    // A push to the fork's branch records a new version in the upstream.
    const next = await commit(fork.body.id, 'from-fork', { 'fork.txt': 'again\n' }, { as: outsider.token });
    expect((await site.api(`/projects/${upstream.id}/merge_requests/${created.body.iid}`, { as: owner.token })).body.sha).toBe(next.id);
    expect(await refOf(upstream.id, `refs/merge-requests/${created.body.iid}/head`)).toBe(next.id);

    const unrelated = await site.api(`/projects/${fork.body.id}/merge_requests`, { method: 'POST', body: { source_branch: 'from-fork', target_branch: 'master', title: 'x', target_project_id: project.id }, as: outsider.token });
    expect(unrelated.status).toBe(422);
  });
});
