import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Behaviour fixes found by today's clients (issue 25, item 5): Date parameters take an ISO 8601
 * time and keep its date, as Grape's Date does; commit messages written through the API are stored
 * exactly as given; a branch created in an empty repository first makes the default branch with an
 * empty README.md, as GitLab's Branches::CreateService does.
 */
let site: TestSite;
let owner: TestUser;
let guest: TestUser;

beforeAll(async () => {
  site = await startSite();
  [owner, guest] = await Promise.all([createUser(site), createUser(site)]);
});
afterAll(() => site.stop());

describe('Date parameters', () => {
  let project: any;
  beforeAll(async () => {
    project = await createProject(site, { visibility: 'private' }, owner.token);
  });

  it('keep the date of an ISO 8601 time, as written whatever its zone', async () => {
    const issue = await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'dated', due_date: '2026-01-02T10:00:00Z' }, as: owner.token });
    expect(issue.status, issue.text).toBe(201);
    expect(issue.body.due_date).toBe('2026-01-02');
    const edited = await site.api(`/projects/${project.id}/issues/${issue.body.iid}`, { method: 'PUT', body: { due_date: '2026-03-04T23:30:00.123-05:00' }, as: owner.token });
    expect(edited.body.due_date).toBe('2026-03-04');
    const milestone = await site.api(`/projects/${project.id}/milestones`, { method: 'POST', body: { title: 'm', start_date: '2026-01-02 08:00', due_date: '2026-02-01T00:00:00+0100' }, as: owner.token });
    expect(milestone.status, milestone.text).toBe(201);
    expect(milestone.body).toMatchObject({ start_date: '2026-01-02', due_date: '2026-02-01' });
    const query = await site.api(`/projects/${project.id}/events?after=2020-01-01T12:00:00Z`, { as: owner.token });
    expect(query.status).toBe(200);
  });

  it('still refuse what is no date (400), before the project is found', async () => {
    for (const due of ['tomorrow', '2026-02-30T10:00:00Z', '2026-01-02Tnoon', '2026-1-2', '02/01/2026']) {
      const response = await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'bad', due_date: due }, as: owner.token });
      expect(response.status, due).toBe(400);
      expect(response.body).toEqual({ message: 'due_date is invalid' });
    }
    expect((await site.api('/projects/999999/issues', { method: 'POST', body: { title: 'x', due_date: 'nope' }, as: owner.token })).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'x', due_date: '2026-01-02T10:00:00Z' }, as: null })).status).toBe(401);
    expect((await site.api('/projects/999999/issues', { method: 'POST', body: { title: 'x', due_date: '2026-01-02T10:00:00Z' }, as: owner.token })).status).toBe(404);
  });
});

describe('commit messages written through the API', () => {
  it('are stored exactly as given by files create, update, delete and POST commits', async () => {
    const project = await createProject(site, { visibility: 'private' }, owner.token);
    const repo = (path: string) => `/projects/${project.id}/repository${path}`;
    const message = async (ref: string) => (await site.api(repo(`/commits/${ref}`), { as: owner.token })).body.message;
    const created = await site.api(repo('/files/a.txt'), { method: 'POST', body: { branch: 'master', content: 'a', commit_message: 'add a' }, as: owner.token });
    expect(created.status, created.text).toBe(201);
    expect(await message('master')).toBe('add a');
    await site.api(repo('/files/a.txt'), { method: 'PUT', body: { branch: 'master', content: 'b', commit_message: 'change a\n\nwith a body' }, as: owner.token });
    expect(await message('master')).toBe('change a\n\nwith a body');
    const commit = await site.api(repo('/commits'), { method: 'POST', body: { branch: 'master', commit_message: 'ends with a newline\n', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] }, as: owner.token });
    expect(commit.status, commit.text).toBe(201);
    expect(commit.body.message).toBe('ends with a newline\n');
    const removed = await site.api(repo('/files/a.txt?branch=master&commit_message=remove%20a'), { method: 'DELETE', as: owner.token });
    expect(removed.status).toBe(204);
    expect(await message('master')).toBe('remove a');
  });
});

describe('POST /repository/branches in an empty repository', () => {
  it('makes the default branch with an empty README.md first, then the branch', async () => {
    const project = await createProject(site, { visibility: 'private' }, owner.token);
    const repo = (path: string) => `/projects/${project.id}/repository${path}`;
    const branch = await site.api(repo('/branches'), { method: 'POST', body: { branch: 'feature', ref: project.default_branch }, as: owner.token });
    expect(branch.status, branch.text).toBe(201);
    expect(branch.body).toMatchObject({ name: 'feature', commit: { title: 'Add README.md', message: 'Add README.md', parent_ids: [] } });
    const main = await site.api(repo(`/branches/${project.default_branch}`), { as: owner.token });
    expect(main.status).toBe(200);
    expect(main.body.commit.id).toBe(branch.body.commit.id);
    expect(main.body.default).toBe(true);
    const readme = await site.api(repo(`/files/README.md?ref=feature`), { as: owner.token });
    expect(readme.status).toBe(200);
    expect(readme.body.size).toBe(0);
    expect((await site.api(repo('/tree?ref=feature'), { as: owner.token })).body.map((entry: any) => entry.path)).toEqual(['README.md']);
    // The repository has a commit now: a second branch is only a branch.
    const second = await site.api(repo('/branches'), { method: 'POST', body: { branch: 'second', ref: 'feature' }, as: owner.token });
    expect(second.body.commit.id).toBe(branch.body.commit.id);
  });

  it('answers 400, 401, 403, 404 and writes nothing for them', async () => {
    const project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMember(site, 'projects', project.id, guest, 10, owner.token);
    const path = `/projects/${project.id}/repository/branches`;
    expect((await site.api(path, { method: 'POST', body: { branch: 'bad..name', ref: 'master' }, as: owner.token })).body).toEqual({ message: 'Branch name is invalid' });
    expect((await site.api(path, { method: 'POST', body: { ref: 'master' }, as: owner.token })).status).toBe(400);
    expect((await site.api(path, { method: 'POST', body: { branch: 'x', ref: 'master' }, as: null })).status).toBe(401);
    expect((await site.api(path, { method: 'POST', body: { branch: 'x', ref: 'master' }, as: guest.token })).status).toBe(403);
    expect((await site.api('/projects/999999/repository/branches', { method: 'POST', body: { branch: 'x', ref: 'master' }, as: owner.token })).status).toBe(404);
    expect((await site.api(`${path}`, { as: owner.token })).body).toEqual([]);
  });
});
