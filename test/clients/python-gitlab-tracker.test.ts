import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

/**
 * python-gitlab 3.12 drives the issue tracker through its own managers (issue 14): project.issues,
 * project.labels and group.labels, project.milestones, gl.todos and project.events. Without the
 * client every test fails, never skips.
 */
describe('python-gitlab 3.12 against the tracker: todos, events and the issue lifecycle', () => {
  const suite = pythonGitlabSuite('python_gitlab_tracker.py', { timeoutMs: 60_000 });

  it('creates, lists with filters, gets, saves, tracks time on, subscribes to, marks and deletes issues', async () => {
    const obs = await suite.section('issues');
    expect(obs.created).toEqual({ iid: 1, labels: ['bug', 'ui'], assignees: [obs.created.dev_id], milestone: 'v1', tasks: { count: 2, completed_count: 1 }, dev_id: obs.created.dev_id });
    expect(obs.iids).toEqual([2, 3]);
    expect(obs.list_all).toEqual([3, 2, 1]);
    expect(obs.list_bug).toEqual([2, 1]);
    expect(obs.list_iids).toEqual([1, 3]);
    expect(obs.list_search).toEqual([3]);
    expect(obs.list_milestone).toEqual([1]);
    expect(obs.list_assignee).toEqual([1]);
    expect(obs.page).toEqual([1]);
    expect(obs.saved).toEqual({ title: 'First, edited', labels: ['later', 'ui'] });
    expect(obs.closed).toEqual({ state: 'closed', closed_by: 'root' });
    expect(obs.list_closed).toEqual([1]);
    expect(obs.reopened).toBe('opened');
    expect(obs.time_stats).toEqual({ time_estimate: 36000, total_time_spent: 5400, human_time_estimate: '1d 2h', human_total_time_spent: '1h 30m' });
    expect(obs.time_stats_reset).toEqual({ time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null });
    // The author follows their issue: subscribing again is python-gitlab's GitlabSubscribeError on a 304.
    expect(obs.subscribe_again).toMatchObject({ error: 'GitlabSubscribeError', code: 304 });
    expect([obs.subscribed_after_unsubscribe, obs.subscribed_after_subscribe]).toEqual([false, true]);
    expect(obs.todo_again).toMatchObject({ error: 'GitlabTodoError', code: 304 });
    expect(obs.not_found).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.bad_create).toMatchObject({ error: 'GitlabCreateError', code: 400, message: 'due_date is invalid' });
    expect(obs.guest_edit).toMatchObject({ error: 'GitlabUpdateError', code: 403 });
    expect(obs.after_delete).toEqual([2, 1]);
    expect(obs.deleted_get).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.open_issues_count).toBe(2);
  });

  it('manages project and group labels', async () => {
    const obs = await suite.section('labels');
    // Project lists include the group's labels (include_ancestor_groups defaults to true).
    expect(obs.project_labels).toEqual(['bug', 'feature', 'team']);
    expect(obs.with_group).toEqual(['bug', 'feature', 'team']);
    expect(obs.group_labels).toEqual(['team']);
    expect(obs.got).toEqual({ name: 'bug', color: '#ff0000', description: 'Broken' });
    expect(obs.renamed).toEqual(['defect', 'feature', 'team']);
    expect(obs.label_subscribed).toBe(true);
    expect(obs.subscribe_again).toMatchObject({ error: 'GitlabSubscribeError', code: 304 });
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 409, message: 'Label already exists' });
    expect(obs.bad_color).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.group_renamed).toEqual(['squad']);
    expect(obs.after_delete).toEqual(['defect']);
    expect(obs.group_after_delete).toEqual([]);
  });

  it('manages milestones', async () => {
    const obs = await suite.section('milestones');
    expect(obs.iids).toEqual([1, 2]);
    expect(obs.listed).toEqual(['v1', 'v2']);
    expect(obs.issues).toEqual(['In v1']);
    expect(obs.merge_requests).toEqual([]);
    expect(obs.closed).toEqual({ state: 'closed', description: 'Done' });
    expect(obs.active).toEqual(['v1']);
    expect(obs.by_title).toEqual([2]);
    expect(obs.bad_dates).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.after_delete).toEqual(['v1']);
  });

  it('lists and marks todos, and lists issue events', async () => {
    const obs = await suite.section('todos');
    const projectId = obs.pending[0][3];
    expect(obs.pending).toEqual([
      ['directly_addressed', 'Addressed', 'root', projectId],
      ['mentioned', 'Mentioned', 'root', projectId],
      ['assigned', 'Assigned', 'root', projectId],
    ]);
    expect(obs.target_type).toEqual(['Issue']);
    expect(obs.by_action).toEqual(['Mentioned']);
    expect([obs.by_project, obs.by_type, obs.by_author]).toEqual([3, 3, 3]);
    expect(obs.marked).toBe('done');
    expect(obs.done).toEqual(['Addressed']);
    expect(obs.after_all).toBe(0);
    expect(obs.marked_todo).toEqual([['marked', 3]]);
    expect(obs.bad_state).toMatchObject({ error: 'GitlabListError', code: 400, message: 'state does not have a valid value' });
    expect(obs.root_todos).toBe(0);
    expect(obs.events).toEqual([
      ['opened', 'Issue', 'Assigned'],
      ['opened', 'Issue', 'Mentioned'],
      ['opened', 'Issue', 'Addressed'],
      ['closed', 'Issue', 'Addressed'],
      // GitLab names a reopened issue's event "opened".
      ['opened', 'Issue', 'Addressed'],
    ]);
    expect(obs.closed_events).toEqual([3]);
  });
});
