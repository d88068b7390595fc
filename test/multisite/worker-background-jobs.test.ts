import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destroyAll, SiteProcess, waitFor } from '../helpers/multisite.js';
import { call } from '../helpers/workers.js';

/**
 * Work a request starts but does not wait for runs in the background worker, never in the request
 * worker that took the request (issue 27): a rebase, a merge when the pipeline succeeds, and
 * housekeeping, whose one-at-a-time lease must hold whichever request worker is asked. Each request
 * goes on its own connection, so the supervisor hands them to both request workers in turn.
 */
/** One API request on its own connection, its body parsed. */
const api = async (site: SiteProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const answer = await call(site, method, `/api/v4${path}`, { body });
  return { status: answer.status, body: answer.text ? JSON.parse(answer.text) : null };
};

/** The workers that logged a message, once one did (the log reaches the test through a pipe, maybe after the answer). */
const workersThatLogged = async (site: SiteProcess, message: string): Promise<string[]> => {
  const lines = () => [...site.output.matchAll(new RegExp(`"worker":"([a-z0-9-]+)"[^\\n]*"msg":"${message}"`, 'g'))].map((match) => match[1]!);
  await waitFor(() => lines().length > 0, { timeoutMs: 5_000, message: `a log line "${message}"` });
  return lines();
};

describe('background work handed from the request workers to the background worker', () => {
  let site: SiteProcess;
  let projectId: number;
  const commit = async (branch: string, file: string, start?: string) => {
    const answer = await api(site, 'POST', `/projects/${projectId}/repository/commits`, {
      branch,
      ...(start ? { start_branch: start } : {}),
      commit_message: `add ${file}`,
      actions: [{ action: 'create', file_path: file, content: `${file}\n` }],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    return answer.body.id as string;
  };
  const openMergeRequest = async (source: string) => {
    const answer = await api(site, 'POST', `/projects/${projectId}/merge_requests`, { source_branch: source, target_branch: 'main', title: source });
    expect(answer.status).toBe(201);
    return answer.body.iid as number;
  };

  beforeAll(async () => {
    site = await SiteProcess.create({ name: 'jobs', role: 'primary', env: { GEOFORGE_WORKERS: '2' } });
    await site.start({ timeoutMs: 40_000 });
    const project = await api(site, 'POST', '/projects', { name: 'jobs', initialize_with_readme: true, default_branch: 'main' });
    expect(project.status).toBe(201);
    projectId = project.body.id;
  }, 60_000);
  afterAll(() => destroyAll([site]));

  it('rebases in the background worker', async () => {
    await commit('topic', 'topic.txt', 'main');
    const target = await commit('main', 'moved-on.txt');
    const iid = await openMergeRequest('topic');
    expect((await api(site, 'PUT', `/projects/${projectId}/merge_requests/${iid}/rebase`, {})).status).toBe(202);
    await waitFor(async () => (await api(site, 'GET', `/projects/${projectId}/merge_requests/${iid}?include_rebase_in_progress=true`)).body.rebase_in_progress === false, {
      timeoutMs: 20_000,
    });
    const rebased = await api(site, 'GET', `/projects/${projectId}/repository/commits/topic`);
    expect(rebased.body.parent_ids).toEqual([target]);
    expect(await workersThatLogged(site, 'rebasing a merge request')).toEqual(['background']);
  });

  it('merges when the pipeline succeeds in the background worker', async () => {
    const head = await commit('ready', 'ready.txt', 'main');
    const iid = await openMergeRequest('ready');
    expect((await api(site, 'POST', `/projects/${projectId}/statuses/${head}`, { state: 'running', ref: 'ready', name: 'ci' })).status).toBe(201);
    await waitFor(async () => (await api(site, 'GET', `/projects/${projectId}/merge_requests/${iid}`)).body.merge_status === 'can_be_merged', { timeoutMs: 20_000 });
    const flagged = await api(site, 'PUT', `/projects/${projectId}/merge_requests/${iid}/merge`, { merge_when_pipeline_succeeds: true });
    expect(flagged.body).toMatchObject({ state: 'opened', merge_when_pipeline_succeeds: true });
    expect((await api(site, 'POST', `/projects/${projectId}/statuses/${head}`, { state: 'success', ref: 'ready', name: 'ci' })).status).toBe(201);
    await waitFor(async () => (await api(site, 'GET', `/projects/${projectId}/merge_requests/${iid}`)).body.state === 'merged', { timeoutMs: 20_000 });
    expect(await workersThatLogged(site, 'merge when pipeline succeeds: merging')).toEqual(['background']);
  });

  it('keeps one housekeeping lease for the site: of two at once on two request workers, one starts and one is refused', async () => {
    const answers = await Promise.all([api(site, 'POST', `/projects/${projectId}/housekeeping`), api(site, 'POST', `/projects/${projectId}/housekeeping`)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.message).toMatch(/already triggered housekeeping/);
    // Once gc is over, the lease is free again.
    await waitFor(async () => (await api(site, 'POST', `/projects/${projectId}/housekeeping`)).status === 201, { timeoutMs: 20_000 });
  });
});
