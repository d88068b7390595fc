import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** POST .../commits/:sha/cherry_pick and .../revert (issue 17, item 1): without a work tree, GitLab's shapes and errors, through the after-push path. */
describe('cherry-pick and revert through the API', () => {
  let site: TestSite;
  let owner: TestUser;
  let developer: TestUser;
  let reporter: TestUser;
  let project: any;
  let receiver: HookReceiver;
  let added: string;
  let feature: string;
  const repo = (suffix = '') => `/projects/${project.id}/repository${suffix}`;
  const commit = (branch: string, file: string, content: string, message: string, startBranch?: string) =>
    site.api(repo('/commits'), {
      method: 'POST',
      as: owner.token,
      body: { branch, start_branch: startBranch, commit_message: message, actions: [{ action: startBranch || file === 'README.md' ? 'create' : 'update', file_path: file, content }] },
    });
  const headOf = async (branch: string) => (await site.api(repo(`/branches/${branch}`), { as: owner.token })).body.commit.id;
  const checksum = () => site.site.db.prepare('SELECT repository_checksum FROM repository_states WHERE project_id = ?').pluck().get(project.id);

  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site, { name: 'Owner Person' });
    developer = await createUser(site, { name: 'Dev Person' });
    reporter = await createUser(site);
    project = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
    await addMember(site, 'projects', project.id, developer, 30, owner.token);
    await addMember(site, 'projects', project.id, reporter, 20, owner.token);
    receiver = await startHookReceiver();
    expect((await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, push_events: true } })).status).toBe(201);
    // Developers push to main here; its first push would otherwise protect it for maintainers only.
    expect((await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'main', push_access_level: 30, merge_access_level: 30 } })).status).toBe(201);
    expect((await commit('main', 'README.md', 'one\ntwo\nthree\n', 'readme')).status).toBe(201);
    added = (await commit('feature', 'feature.txt', 'feature\n', 'add feature', 'main')).body.id;
    feature = (await commit('feature', 'feature.txt', 'feature v2\n', 'feature v2')).body.id;
  });
  afterAll(async () => {
    await site?.stop();
    receiver?.close();
  });

  it('cherry-picks a commit onto a branch: 201 with the Commit entity, the branch moved, hooks and Geo event', async () => {
    const before = await headOf('main');
    const stateBefore = checksum();
    const hooksBefore = receiver.received.length;
    const picked = await site.api(repo(`/commits/${added}/cherry_pick`), { method: 'POST', as: developer.token, body: { branch: 'main' } });
    expect(picked.status).toBe(201);
    expect(picked.headers['content-type']).toBe('application/json');
    expect(picked.body).toMatchObject({
      title: 'add feature',
      message: `add feature\n\n(cherry-picked from commit ${added})`,
      parent_ids: [before],
      author_name: 'Owner Person',
      committer_name: 'Dev Person',
    });
    expect(picked.body.id).toMatch(/^[0-9a-f]{40}$/);
    expect(picked.body.short_id).toBe(picked.body.id.slice(0, 8));
    expect(picked.body).not.toHaveProperty('stats');
    expect(await headOf('main')).toBe(picked.body.id);
    expect((await site.api(repo('/files/feature.txt/raw?ref=main'), { as: owner.token })).text).toBe('feature\n');
    await waitFor(() => receiver.received.length > hooksBefore, { timeoutMs: 10_000 });
    const push = receiver.received.at(-1)!.body;
    expect(push).toMatchObject({ object_kind: 'push', ref: 'refs/heads/main', before, after: picked.body.id, total_commits_count: 1 });
    await waitFor(() => checksum() !== stateBefore, { timeoutMs: 10_000 });
    const events = await site.api(`/projects/${project.id}/events`, { as: owner.token });
    expect(events.body[0]).toMatchObject({ action_name: 'pushed to', push_data: { commit_to: picked.body.id, ref: 'main' } });
  });

  it('answers 400 with GitLab message when the change is already there or conflicts', async () => {
    const again = await site.api(repo(`/commits/${added}/cherry_pick`), { method: 'POST', as: developer.token, body: { branch: 'main' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      message: 'Sorry, we cannot cherry-pick this commit automatically. This commit may already have been cherry-picked, or a more recent commit may have updated some of its content.',
    });
    const left = (await site.api(repo('/commits'), { method: 'POST', as: owner.token, body: { branch: 'left', start_branch: 'main', commit_message: 'left', actions: [{ action: 'update', file_path: 'README.md', content: 'one\nLEFT\nthree\n' }] } })).body.id;
    const right = await site.api(repo('/commits'), { method: 'POST', as: owner.token, body: { branch: 'right', start_branch: 'main', commit_message: 'right', actions: [{ action: 'update', file_path: 'README.md', content: 'one\nRIGHT\nthree\n' }] } });
    expect(right.status).toBe(201);
    const before = await headOf('right');
    const conflict = await site.api(repo(`/commits/${left}/cherry_pick`), { method: 'POST', as: developer.token, body: { branch: 'right' } });
    expect(conflict.status).toBe(400);
    expect(conflict.body.message).toMatch(/^Sorry, we cannot cherry-pick this commit automatically\./);
    expect(await headOf('right')).toBe(before);
  });

  it('reverts a commit with GitLab message, the caller as author', async () => {
    const target = await headOf('feature');
    const reverted = await site.api(repo(`/commits/${feature}/revert`), { method: 'POST', as: developer.token, body: { branch: 'feature' } });
    expect(reverted.status).toBe(201);
    expect(reverted.body).toMatchObject({ title: 'Revert "feature v2"', message: `Revert "feature v2"\n\nThis reverts commit ${feature}`, parent_ids: [target], author_name: 'Dev Person' });
    const file = await site.api(repo(`/files/feature.txt/raw?ref=feature`), { as: owner.token });
    expect(file.text).toBe('feature\n');
    const again = await site.api(repo(`/commits/${feature}/revert`), { method: 'POST', as: developer.token, body: { branch: 'feature' } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(
      'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
    );
    const log = await runGit(['--git-dir', repositoryPath(site.dataDir, project.id), 'log', '--format=%s', '-1', 'refs/heads/feature']);
    expect(log.stdout.trim()).toBe('Revert "feature v2"');
  });

  it('checks the parameters, the commit, the branch and the caller in GitLab order', async () => {
    const path = repo(`/commits/${feature}/cherry_pick`);
    expect((await site.api(path, { method: 'POST', as: null, body: { branch: 'main' } })).status).toBe(401);
    expect((await site.api(path, { method: 'POST', as: reporter.token, body: { branch: 'main' } })).status).toBe(403);
    const stranger = await createUser(site);
    expect((await site.api(path, { method: 'POST', as: stranger.token, body: { branch: 'main' } })).status).toBe(404);
    const missing = await site.api(path, { method: 'POST', as: developer.token, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/branch is missing/);
    const noCommit = await site.api(repo(`/commits/${'f'.repeat(40)}/revert`), { method: 'POST', as: developer.token, body: { branch: 'main' } });
    expect(noCommit).toMatchObject({ status: 404, body: { message: '404 Commit Not Found' } });
    const noBranch = await site.api(path, { method: 'POST', as: developer.token, body: { branch: 'nope' } });
    expect(noBranch).toMatchObject({ status: 404, body: { message: '404 Branch Not Found' } });
    // A branch whose protection lets maintainers push only refuses a developer's cherry-pick, unchanged.
    expect((await site.api(repo('/branches'), { method: 'POST', as: owner.token, body: { branch: 'locked', ref: 'main' } })).status).toBe(201);
    expect((await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'locked', push_access_level: 40 } })).status).toBe(201);
    const before = await headOf('locked');
    const protectedBranch = await site.api(path, { method: 'POST', as: developer.token, body: { branch: 'locked' } });
    expect(protectedBranch).toMatchObject({ status: 400, body: { message: 'You are not allowed to push into this branch' } });
    expect(await headOf('locked')).toBe(before);
  });
});
