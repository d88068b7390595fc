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
  const tree = await site.api(`/projects/${projectId}/repository/tree?ref=${encodeURIComponent(options.start ?? branch)}&recursive=true&per_page=100`, { as: options.as ?? owner.token });
  const existing = new Set(tree.status === 200 ? tree.body.map((entry: any) => entry.path) : []);
  const actions = Object.entries(files).map(([path, content]) => ({ action: existing.has(path) ? 'update' : 'create', file_path: path, content }));
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
