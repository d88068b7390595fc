import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
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
    expect(commits.body[0]).toMatchObject({ short_id: second.id.slice(0, 8), title: 'v two', message: 'v two\n', author_name: expect.any(String), parent_ids: [first.id] });
    expect(commits.headers['x-total']).toBe('2');

    const changes = await site.api(`/projects/${project.id}/merge_requests/${mr.iid}/changes`, { as: developer.token });
    expect(changes.body).toMatchObject({ iid: mr.iid, changes_count: '2', sha: second.id });
    expect(changes.body.changes.map((c: any) => c.new_path).sort()).toEqual(['v.txt', 'w.txt']);
    expect(changes.body.changes[0]).toEqual(expect.objectContaining({ old_path: expect.any(String), a_mode: expect.any(String), b_mode: '100644', renamed_file: false, deleted_file: false }));
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
