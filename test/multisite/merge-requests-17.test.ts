import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { commitFile, createdOn, readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * GitLab 17's merge request additions across sites (issue 25): a secondary shows the new fields
 * (reviewers, detailed_merge_status, draft, references...) and the new lists (reviewers,
 * related_issues, a commit's merge requests, the reviewer filters) exactly as the primary, from its
 * own copy; the new writes through it (reviewer_ids, add_labels, auto_merge) are forwarded.
 */
describe('multi-site GitLab 17 merge requests', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (apiPath: string) => readsTheSame(primary, secondary, apiPath);

  it('reads the new fields and lists the same on the secondary, and forwards reviewer_ids, add_labels and auto_merge', { timeout: 180_000 }, async () => {
    const suffix = randomUUID().slice(0, 8);
    const reviewer = await createdOn(primary, '/users', { username: `rev-${suffix}`, email: `rev-${suffix}@example.com`, name: 'Reviewer', password: 'password123' });
    const project = await createdOn(primary, '/projects', { name: `mr17-${suffix}`, visibility: 'private' });
    const id = project.id;
    await createdOn(primary, `/projects/${id}/members`, { user_id: reviewer.id, access_level: 30 });
    await commitFile(primary, id, 'master', 'README.md');
    const head = await commitFile(primary, id, 'feature', 'one.txt', 'master');
    const issue = await createdOn(primary, `/projects/${id}/issues`, { title: 'to close' });
    const created = await createdOn(primary, `/projects/${id}/merge_requests`, {
      source_branch: 'feature',
      target_branch: 'master',
      title: 'Draft: replicated',
      description: `Closes #${issue.iid}\n\n- [ ] task`,
      reviewer_ids: [reviewer.id],
      labels: 'geo',
    });
    const iid = created.iid;
    await waitFor(async () => (await primary.api(`/projects/${id}/merge_requests/${iid}`)).body.merge_status === 'can_be_merged', { timeoutMs: 30_000, message: 'checked' });

    const shown = await sameOnBoth(`/projects/${id}/merge_requests/${iid}`);
    expect(shown.body).toMatchObject({ draft: true, detailed_merge_status: 'draft_status', reviewers: [{ id: reviewer.id }], task_completion_status: { count: 1, completed_count: 0 } });
    await sameOnBoth(`/projects/${id}/merge_requests/${iid}/reviewers`);
    await sameOnBoth(`/projects/${id}/merge_requests/${iid}/related_issues`);
    await sameOnBoth(`/projects/${id}/merge_requests?reviewer_id=${reviewer.id}&with_labels_details=true`);
    await sameOnBoth(`/merge_requests?scope=all&reviewer_username=${reviewer.username}`);
    const byCommit = await sameOnBoth(`/projects/${id}/repository/commits/${head.id}/merge_requests`);
    expect(byCommit.body).toMatchObject([{ iid }]);

    // The new writes through the secondary are forwarded to the primary and read back on both.
    const edited = await secondary.api(`/projects/${id}/merge_requests/${iid}`, { method: 'PUT', body: { title: 'Ready', add_labels: 'more', reviewer_ids: [] } });
    expect(edited.status, edited.text).toBe(200);
    const after = await sameOnBoth(`/projects/${id}/merge_requests/${iid}`);
    expect(after.body).toMatchObject({ draft: false, labels: ['geo', 'more'], reviewers: [] });
    await waitFor(async () => (await primary.api(`/projects/${id}/merge_requests/${iid}`)).body.detailed_merge_status === 'mergeable', { timeoutMs: 30_000, message: 'mergeable' });
    const merged = await secondary.api(`/projects/${id}/merge_requests/${iid}/merge`, { method: 'PUT', body: { auto_merge: true } });
    expect(merged.status, merged.text).toBe(200);
    const final = await sameOnBoth(`/projects/${id}/merge_requests/${iid}`);
    expect(final.body).toMatchObject({ state: 'merged', detailed_merge_status: 'not_open' });
  });
});
