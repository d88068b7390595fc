import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, startGitRemote, type GitRemote } from '../helpers/git.js';
import { pythonGitlabSuite } from '../helpers/python.js';

/**
 * python-gitlab 3.12 drives push mirrors through project.remote_mirrors (create, list, save) and
 * its own HTTP calls for what 3.12 lacks (GET one, sync, DELETE), against a real remote served by
 * git http-backend on loopback behind HTTP Basic (issue 26, item 8). Without the client every test
 * fails, never skips.
 */
describe('python-gitlab 3.12 against push mirrors', () => {
  const suite = pythonGitlabSuite('python_gitlab_remote_mirrors.py', { timeoutMs: 60_000 });
  let dir: string;
  let remote: GitRemote;
  let git: ReturnType<typeof gitClient>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-pg-mirrors-'));
    git = gitClient(path.join(dir, 'home'));
    await git(['init', '-q', '--bare', path.join(dir, 'remotes', 'pg.git')]);
    remote = await startGitRemote(path.join(dir, 'remotes'), { user: 'bot', password: 'Pg-mirror-pw-1' });
  });
  afterAll(async () => {
    await remote?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates, lists, saves, syncs and deletes a mirror; the remote holds the project', async () => {
    const obs = await suite.section('mirrors', { MIRROR_URL: `${remote.origin.replace('://', '://bot:Pg-mirror-pw-1@')}/pg.git` });
    expect(obs.created).toEqual({ enabled: true, url: `${remote.origin.replace('://', '://*****:*****@')}/pg.git`, only_protected_branches: false, keep_divergent_refs: false, auth_method: 'password' });
    expect(obs.finished).toBeNull();
    expect(obs.listed).toEqual([true]);
    expect(obs.saved).toBe(true);
    expect(obs.bad_url).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.synced).toBe('finished');
    expect(obs.after_delete).toEqual([]);
    const { stdout } = await git(['ls-remote', path.join(dir, 'remotes', 'pg.git'), 'refs/heads/master']);
    expect(stdout.split('\t')[0]).toBe(obs.master);
    expect(JSON.stringify(obs)).not.toContain('Pg-mirror-pw-1');
  });
});
