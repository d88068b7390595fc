import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * A dependency bot's flow (Renovate, Dependabot for GitLab) through @gitbeaker/rest, a client of
 * GitLab 17's API (issue 25): a branch with the bump, a merge request with assignee_ids,
 * reviewer_ids and labels, add_labels on update, the reviewer's list, a poll on
 * detailed_merge_status until `mergeable`, and the merge with auto_merge.
 */
let site: TestSite;
let bot: TestUser;
let maintainer: TestUser;
let reviewer: TestUser;
let projectId: number;

beforeAll(async () => {
  site = await startSite();
  [bot, maintainer, reviewer] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  const project = await createProject(site, { name: 'bot-target', visibility: 'private' });
  projectId = project.id;
  for (const [user, level] of [[bot, 40], [maintainer, 40], [reviewer, 30]] as const) await addMember(site, 'projects', projectId, user, level);
  const seeded = await site.api(`/projects/${projectId}/repository/commits`, {
    method: 'POST',
    body: { branch: 'master', commit_message: 'init', actions: [{ action: 'create', file_path: 'package.json', content: '{"dependencies":{"left-pad":"1.0.0"}}\n' }] },
  });
  expect(seeded.status, seeded.text).toBe(201);
});
afterAll(() => site.stop());

describe('@gitbeaker/rest as a dependency bot', () => {
  it('opens, labels, finds, waits on and auto-merges a bump', { timeout: 120_000 }, async () => {
    const api = new Gitlab({ host: site.url, token: bot.token });
    expect((await api.Metadata.show()).version).toMatch(/^17\.\d+\.\d+-ee$/);

    const branch = 'renovate/left-pad-1.x';
    await api.Branches.create(projectId, branch, 'master');
    await api.Commits.create(projectId, branch, 'chore(deps): update left-pad to 1.3.0', [
      { action: 'update', filePath: 'package.json', content: '{"dependencies":{"left-pad":"1.3.0"}}\n' },
    ]);
    const created = await api.MergeRequests.create(projectId, branch, 'master', 'chore(deps): update left-pad to 1.3.0', {
      assigneeIds: [maintainer.id],
      reviewerIds: [reviewer.id],
      labels: 'dependencies',
      removeSourceBranch: true,
    });
    expect(created).toMatchObject({ assignees: [{ id: maintainer.id }], reviewers: [{ id: reviewer.id }], labels: ['dependencies'], draft: false });

    const labelled = await api.MergeRequests.edit(projectId, created.iid, { addLabels: 'javascript' });
    expect(labelled.labels).toEqual(['dependencies', 'javascript']);

    const mine = await api.MergeRequests.all({ projectId, reviewerId: reviewer.id, state: 'opened' });
    expect(mine.map((mr) => mr.iid)).toEqual([created.iid]);

    const ready = await waitFor(
      async () => {
        const shown = await api.MergeRequests.show(projectId, created.iid);
        return shown.detailed_merge_status === 'mergeable' && shown;
      },
      { timeoutMs: 90_000, intervalMs: 200, message: 'detailed_merge_status mergeable' },
    );
    expect(ready).toMatchObject({ has_conflicts: false, blocking_discussions_resolved: true, user: { can_merge: true } });

    const merged = await api.MergeRequests.merge(projectId, created.iid, { autoMerge: true, shouldRemoveSourceBranch: true });
    expect(merged).toMatchObject({ state: 'merged', merge_user: { id: bot.id }, detailed_merge_status: 'not_open' });
    const left = await site.api(`/projects/${projectId}/repository/files/package.json/raw?ref=master`);
    expect(left.text).toContain('1.3.0');
  });
});
