import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 merging merge requests (merge, merge when pipeline succeeds, rebase, approvals)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_mr_merge.py', { timeoutMs: 60_000 });

  it('merges through mr.merge(): the sha check, the merge commit with its message, the source branch removed, a second merge refused', async () => {
    const obs = await section('merge');
    expect(obs.created).toBe('unchecked');
    expect(obs.checked).toBe('can_be_merged');
    expect(obs.sha_mismatch).toMatchObject({ error: 'GitlabMRClosedError', code: 409 });
    expect(obs.merged).toEqual({ state: 'merged', returned: 'merged', merge_commit_is_master: true, parents: true });
    expect(obs.message).toBe('Merged by python-gitlab');
    expect(obs.again).toMatchObject({ error: 'GitlabMRClosedError', code: 406 });
    expect(obs.source_branch).toMatchObject({ error: 'GitlabGetError', code: 404 });
  });

  it('waits for a running pipeline, cancels and sets the wait again, then merges when the status succeeds', async () => {
    const obs = await section('mwps');
    expect(obs.flagged).toEqual({ state: 'opened', mwps: true });
    expect(obs.cancelled).toEqual({ state: 'opened', mwps: false });
    expect(obs.cancel_again).toMatchObject({ error: 'GitlabMROnBuildSuccessError', code: 406 });
    expect(obs.merged_on_success).toBe(true);
  });

  it('rebases through mr.rebase() (PUT) in the background', async () => {
    const obs = await section('rebase');
    expect(obs.started).toEqual({ rebase_in_progress: true });
    expect(obs.done).toBe(true);
    expect(obs.on_target).toBe(true);
  });

  it('reads and sets approvals through project.approvals and mr.approvals, approves and unapproves, and merges once approved', async () => {
    const obs = await section('approvals');
    expect(obs.settings).toEqual({ approvals_before_merge: 0, reset_approvals_on_push: true });
    expect(obs.updated).toBe(1);
    expect(obs.state).toEqual({ required: 1, missing: 1, approved_by: [] });
    expect(obs.blocked).toMatchObject({ error: 'GitlabMRClosedError', code: 405 });
    // python-gitlab raises GitlabAuthenticationError for every 401, as against GitLab.
    expect(obs.author).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.approved.left).toBe(0);
    expect(obs.approved.by).toHaveLength(1);
    expect(obs.unapprove_again).toMatchObject({ error: 'GitlabMRApprovalError', code: 404 });
    expect(obs.merged).toBe('merged');
  });
});
