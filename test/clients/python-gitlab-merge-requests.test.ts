import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

/**
 * python-gitlab 3.12 drives merge requests through its own managers (issue 15; GITLAB-NOTES 3.5):
 * project.mergerequests and gl.mergerequests, a merge request's changes, commits, participants,
 * closes_issues and diffs (versions), its notes, discussions (a diff note that resolves), award
 * emoji, subscriptions and todo. Without the client every test fails, never skips.
 */
describe('python-gitlab 3.12 against merge requests', () => {
  const suite = pythonGitlabSuite('python_gitlab_merge_requests.py', { timeoutMs: 90_000 });

  it('creates, lists with filters, gets, saves, reads changes, commits and versions, and deletes merge requests', async () => {
    const obs = await suite.section('merge_requests');
    expect(obs.created).toEqual({ iid: 1, labels: ['review', 'x'], state: 'opened', merge_status: 'unchecked', changes_count: '1', force_remove_source_branch: true, subscribed: true });
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 409 });
    expect(obs.missing_branch).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.list).toEqual([2, 1]);
    expect(obs.list_labels).toEqual([1]);
    expect(obs.list_iids).toEqual([1]);
    expect(obs.list_asc).toEqual([1, 2]);
    expect(obs.list_wip).toEqual([2]);
    expect(obs.list_simple).toEqual(['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
    expect(obs.global).toEqual([1, 2]);
    expect(obs.saved).toEqual({ title: 'First, edited', labels: ['later'] });
    expect(obs.closed).toBe('closed');
    expect(obs.list_closed).toEqual([2]);
    expect(obs.changes).toEqual({ count: '1', paths: ['topic-a.txt'] });
    expect(obs.commits).toEqual(['Add topic-a']);
    expect(obs.participants).toHaveLength(1);
    expect(obs.closes_issues).toEqual([obs.issue_iid]);
    expect(obs.versions).toEqual([{ state: 'collected', real_size: '1' }]);
    expect(obs.version).toEqual({ commits: 1, diffs: ['topic-a.txt'] });
    expect(obs.missing).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.after_delete).toEqual([1]);
  });

  it('comments, opens a diff thread that resolves, awards emoji, subscribes and marks a todo', async () => {
    const obs = await suite.section('collaboration');
    expect(obs.note).toEqual({ body: 'A comment', noteable_type: 'MergeRequest' });
    expect(obs.notes).toEqual(['An edited comment']);
    expect(obs.diff_note).toEqual({ type: 'DiffNote', resolvable: true });
    expect(obs.thread).toEqual(['On this line', 'A reply']);
    expect(obs.resolved).toEqual([true, true]);
    expect(obs.award).toBe('thumbsup');
    expect(obs.upvotes).toBe(1);
    expect(obs.note_award).toBe('tada');
    expect(obs.awards_after_delete).toBe(0);
    expect(obs.unsubscribe).toBe(false);
    expect(obs.unsubscribe_again).toMatchObject({ code: 304 });
    expect(obs.subscribed).toBe(true);
    expect(obs.subscribe_again).toMatchObject({ code: 304 });
    expect(obs.todo).toBe(true);
    expect(obs.todos).toEqual([['marked', 'MergeRequest', 1]]);
    expect(obs.todo_again).toMatchObject({ code: 304 });
    expect(obs.label_events).toBe(0);
  });
});
