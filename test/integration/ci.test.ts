import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMembers, createProject, createUsers, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const ENV = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' };

/** Writes a commit straight into the project's bare repository and points `branch` at it. */
async function commitTo(site: TestSite, projectId: number, branch: string, message: string, parent?: string): Promise<string> {
  const gitDir = repositoryPath(site.dataDir, projectId);
  const tree = (await runGit(['--git-dir', gitDir, 'mktree'])).stdout.trim();
  const args = ['--git-dir', gitDir, 'commit-tree', tree, '-m', message, ...(parent ? ['-p', parent] : [])];
  const sha = (await runGit(args, { env: ENV })).stdout.trim();
  await runGit(['--git-dir', gitDir, 'update-ref', `refs/heads/${branch}`, sha]);
  return sha;
}

function artifactForm(filename: string, content: Buffer): FormData {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(content)]), filename);
  return form;
}

describe('CI: commit statuses, pipelines, jobs and artifacts', () => {
  let site: TestSite;
  let owner: TestUser, developer: TestUser, reporter: TestUser, stranger: TestUser;
  let project: any;
  let sha: string;
  let second: string;

  beforeAll(async () => {
    site = await startSite();
    [owner, developer, reporter, stranger] = await createUsers(site, 4);
    project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    await addMembers(site, 'projects', project.id, [[developer, 30], [reporter, 20]], owner.token);
    sha = await commitTo(site, project.id, 'master', 'first commit');
    second = await commitTo(site, project.id, 'feature', 'second commit', sha);
  });
  afterAll(() => site.stop());

  const post = (commit: string, body: Record<string, unknown>, as?: string | null) =>
    site.api(`/projects/${project.id}/statuses/${commit}`, { method: 'POST', body, as: as === undefined ? developer.token : as });

  it('creates and updates a status through its states, aggregating the pipeline', async () => {
    const pending = await post(sha, { state: 'pending', name: 'build', target_url: 'https://ci.example.com/1', description: 'queued' });
    expect(pending.status).toBe(201);
    expect(pending.body).toMatchObject({
      sha,
      ref: 'master',
      status: 'pending',
      name: 'build',
      target_url: 'https://ci.example.com/1',
      description: 'queued',
      allow_failure: false,
      coverage: null,
      started_at: null,
      finished_at: null,
      author: { id: developer.id, username: developer.username },
    });
    const id = pending.body.id;

    const running = await post(sha, { state: 'running', name: 'build' });
    expect(running.status).toBe(201);
    expect(running.body).toMatchObject({ id, status: 'running', description: 'queued' });
    expect(running.body.started_at).not.toBeNull();

    // `context` names the status too; a second job in the same pipeline.
    const lint = await post(sha, { state: 'success', context: 'lint', coverage: 87.5 });
    expect(lint.body).toMatchObject({ name: 'lint', status: 'success', coverage: 87.5 });
    expect(lint.body.id).not.toBe(id);

    let pipelines = await site.api(`/projects/${project.id}/pipelines`, { as: reporter.token });
    expect(pipelines.body).toHaveLength(1);
    expect(pipelines.body[0]).toMatchObject({ sha, ref: 'master', status: 'running' });
    expect(pipelines.body[0].web_url).toBe(`${site.url}/${project.path_with_namespace}/pipelines/${pipelines.body[0].id}`);

    const done = await post(sha, { state: 'success', name: 'build' });
    expect(done.body).toMatchObject({ id, status: 'success' });
    expect(done.body.finished_at).not.toBeNull();
    pipelines = await site.api(`/projects/${project.id}/pipelines`, { as: reporter.token });
    expect(pipelines.body[0].status).toBe('success');

    // A finished status cannot run again (GitLab's state machine).
    const illegal = await post(sha, { state: 'running', name: 'build' });
    expect(illegal.status).toBe(400);
    expect(illegal.body.message).toMatch(/^Cannot transition status via :run from :success/);

    const failed = await post(sha, { state: 'failed', name: 'deploy' });
    expect(failed.body.status).toBe('failed');
    const one = await site.api(`/projects/${project.id}/pipelines/${pipelines.body[0].id}`, { as: reporter.token });
    expect(one.body).toMatchObject({ id: pipelines.body[0].id, status: 'failed', sha, ref: 'master', user: { id: developer.id } });
    expect(one.body.finished_at).not.toBeNull();
  });

  it('refuses bad states, unknown commits and callers below developer', async () => {
    expect(await post(sha, { state: 'bogus' })).toMatchObject({ status: 400, body: { message: 'state does not have a valid value' } });
    expect(await post(sha, {})).toMatchObject({ status: 400, body: { message: 'state is missing' } });
    expect(await post('0123456789abcdef0123456789abcdef01234567', { state: 'pending' })).toMatchObject({
      status: 404,
      body: { message: '404 Commit Not Found' },
    });
    expect(await post('--output=x', { state: 'pending' })).toMatchObject({ status: 404 });
    expect((await post(sha, { state: 'pending' }, reporter.token)).status).toBe(403);
    expect((await post(sha, { state: 'pending' }, stranger.token)).status).toBe(404);
    expect((await post(sha, { state: 'pending' }, null)).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/pipelines`, { as: stranger.token })).status).toBe(404);
  });

  it('lists a commit statuses with filters and pagination', async () => {
    await post(second, { state: 'pending', name: 'on-feature' });
    const feature = await site.api(`/projects/${project.id}/repository/commits/${second}/statuses`, { as: reporter.token });
    expect(feature.body.map((s: any) => [s.name, s.ref, s.status])).toEqual([['on-feature', 'feature', 'pending']]);

    const all = await site.api(`/projects/${project.id}/repository/commits/${sha}/statuses?per_page=2`, { as: reporter.token });
    expect(all.status).toBe(200);
    expect(all.headers['x-total']).toBe('3');
    expect(all.body.map((s: any) => s.name)).toEqual(['build', 'lint']);
    const byName = await site.api(`/projects/${project.id}/repository/commits/${sha}/statuses?name=deploy`, { as: reporter.token });
    expect(byName.body.map((s: any) => s.status)).toEqual(['failed']);
    const byStage = await site.api(`/projects/${project.id}/repository/commits/${sha}/statuses?stage=test`, { as: reporter.token });
    expect(byStage.body).toEqual([]);

    const bySha = await site.api(`/projects/${project.id}/pipelines?sha=${second}`, { as: reporter.token });
    expect(bySha.body.map((p: any) => p.ref)).toEqual(['feature']);
    const byStatus = await site.api(`/projects/${project.id}/pipelines?status=failed`, { as: reporter.token });
    expect(byStatus.body.map((p: any) => p.sha)).toEqual([sha]);
    expect((await site.api(`/projects/${project.id}/pipelines/999999`, { as: reporter.token })).status).toBe(404);
  });

  it('lists and shows jobs', async () => {
    const jobs = await site.api(`/projects/${project.id}/jobs`, { as: reporter.token });
    expect(jobs.status).toBe(200);
    expect(jobs.body.map((j: any) => j.name)).toEqual(['on-feature', 'deploy', 'lint', 'build']);
    const scoped = await site.api(`/projects/${project.id}/jobs?scope[]=success&scope[]=pending`, { as: reporter.token });
    expect(scoped.body.map((j: any) => j.name)).toEqual(['on-feature', 'lint', 'build']);
    expect((await site.api(`/projects/${project.id}/jobs?scope[]=nope`, { as: reporter.token })).status).toBe(400);

    const build = jobs.body[3];
    const one = await site.api(`/projects/${project.id}/jobs/${build.id}`, { as: reporter.token });
    expect(one.body).toMatchObject({
      id: build.id,
      name: 'build',
      stage: 'external',
      status: 'success',
      ref: 'master',
      tag: false,
      user: { id: developer.id },
      commit: { id: sha, short_id: sha.slice(0, 7), title: 'first commit', author_name: 'Test' },
      pipeline: { sha, ref: 'master', status: 'failed' },
      artifacts_file: null,
      web_url: `${site.url}/${project.path_with_namespace}/-/jobs/${build.id}`,
    });
    expect(one.body.duration).toBeGreaterThanOrEqual(0);
    expect((await site.api(`/projects/${project.id}/jobs/999999`, { as: reporter.token })).body).toEqual({ message: '404 Job Not Found' });
  });

  it('uploads, downloads, replaces and deletes job artifacts', async () => {
    const jobs = await site.api(`/projects/${project.id}/jobs?scope=success`, { as: reporter.token });
    const job = jobs.body.find((j: any) => j.name === 'build');
    const url = `/projects/${project.id}/jobs/${job.id}/artifacts`;
    const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));

    expect((await site.api(url, { as: reporter.token })).status).toBe(404);
    expect((await site.api(url, { method: 'POST', form: artifactForm('a.zip', content), as: reporter.token })).status).toBe(403);
    expect((await site.api(url, { method: 'POST', form: new FormData(), as: developer.token })).body).toEqual({ message: 'file is missing' });

    const uploaded = await site.api(url, { method: 'POST', form: artifactForm('artifacts.zip', content), as: developer.token });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ id: job.id, artifacts_file: { filename: 'artifacts.zip', size: content.length } });

    const row = site.site.db.prepare('SELECT * FROM ci_job_artifacts WHERE job_id = ?').get(job.id) as any;
    expect(row).toMatchObject({ project_id: project.id, file_type: 'archive', size: content.length, sha256: createHash('sha256').update(content).digest('hex') });
    const dir = path.join(site.dataDir, 'artifacts', String(project.id), String(job.id));
    expect(await readdir(dir)).toEqual(['artifacts.zip']);

    const download = await site.api(url, { as: reporter.token });
    expect(download.status).toBe(200);
    expect(download.headers['content-disposition']).toBe('attachment; filename="artifacts.zip"');
    expect(Buffer.from(download.text, 'latin1').length).toBeGreaterThan(0);
    const raw = await fetch(`${site.url}/api/v4${url}`, { headers: { 'private-token': reporter.token } });
    expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);

    const stats = await site.api(`/projects/${project.id}?statistics=true`, { as: owner.token });
    expect(stats.body.statistics.job_artifacts_size).toBe(content.length);

    // A new archive replaces the earlier one, file and row.
    const replaced = await site.api(url, { method: 'POST', form: artifactForm('other.zip', Buffer.from('small')), as: developer.token });
    expect(replaced.body.artifacts_file).toEqual({ filename: 'other.zip', size: 5 });
    expect(await readdir(dir)).toEqual(['other.zip']);
    expect(site.site.db.prepare('SELECT count(*) FROM ci_job_artifacts WHERE job_id = ?').pluck().get(job.id)).toBe(1);

    expect((await site.api(url, { method: 'DELETE', as: reporter.token })).status).toBe(403);
    expect((await site.api(url, { method: 'DELETE', as: developer.token })).status).toBe(204);
    expect(await stat(dir).catch(() => null)).toBeNull();
    expect((await site.api(url, { as: reporter.token })).status).toBe(404);
    expect((await site.api(url, { method: 'DELETE', as: developer.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/jobs/${job.id}`, { as: reporter.token })).body.artifacts_file).toBeNull();
  });

  it('lets guests of a public project with public jobs read, and nobody else', async () => {
    const open = await createProject(site, { visibility: 'public', default_branch: 'master' }, owner.token);
    const commit = await commitTo(site, open.id, 'master', 'public commit');
    expect((await site.api(`/projects/${open.id}/statuses/${commit}`, { method: 'POST', body: { state: 'success' }, as: owner.token })).body).toMatchObject({
      name: 'default',
      ref: 'master',
    });
    expect((await site.api(`/projects/${open.id}/jobs`, { as: null })).body).toHaveLength(1);
    expect((await site.api(`/projects/${open.id}/repository/commits/${commit}/statuses`, { as: stranger.token })).body).toHaveLength(1);
    expect((await site.api(`/projects/${project.id}/jobs`, { as: stranger.token })).status).toBe(404);
  });
});
