import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the issue tracker (issues, labels, milestones)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_issues.py', { timeoutMs: 30_000 });

  it('creates, lists, saves, closes, tracks time on, follows, moves and deletes issues through project.issues', async () => {
    const obs = await section('issues');
    expect(obs.created).toEqual({
      first: { iid: 1, labels: ['bug', 'ui'], milestone: '1.0', has_tasks: true, task_completion_status: { count: 2, completed_count: 1 }, state: 'opened' },
      second: { iid: 2, confidential: true },
    });
    expect(obs.list).toEqual({ all: [2, 1], labels: [1], iids: [2], milestone: [1], opened_asc: [1, 2], mine: ['first'], all_pages: 2 });
    expect(obs.saved).toEqual({ title: 'first, edited', labels: ['ui'] });
    expect(obs.closed).toEqual({ state: 'closed', closed_by: 'root' });
    expect(obs.time).toEqual({
      estimate: { time_estimate: 12600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null },
      spent: { time_estimate: 12600, total_time_spent: 3600, human_time_estimate: '3h 30m', human_total_time_spent: '1h' },
      stats: { time_estimate: 12600, total_time_spent: 3600, human_time_estimate: '3h 30m', human_total_time_spent: '1h' },
      reset: { time_estimate: 12600, total_time_spent: 0, human_time_estimate: '3h 30m', human_total_time_spent: null },
      reset_estimate: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
      bad: { error: 'GitlabTimeTrackingError', code: 400, message: "{'time_estimate': ['has an invalid format']}" },
    });
    expect(obs.subscribe).toEqual({ again: { error: 'GitlabSubscribeError', code: 304, message: '' }, after_unsubscribe: false, after_subscribe: true });
    expect(obs.participants).toEqual(['root']);
    expect(obs.closed_by).toEqual([]);
    expect(obs.user_agent_detail).toEqual(['akismet_submitted', 'ip_address', 'user_agent']);
    expect(obs.moved).toEqual({ project_id: obs.target_id, iid: 1, old_state: 'closed' });
    expect(obs.deleted).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.missing).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Not found' });
  });

  it('creates, lists, saves (by name), follows, promotes and deletes project and group labels', async () => {
    const obs = await section('labels');
    expect(obs.created).toEqual({ bug: ['bug', '#FF0000', 1], named: '#008000', group: ['from-group', '#00FF00'] });
    expect(obs.duplicate).toEqual({ error: 'GitlabCreateError', code: 409, message: 'Label already exists' });
    expect(obs.bad_color).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'color': ['must be a valid color code']}" });
    expect(obs.list).toEqual(['bug', 'from-group', 'named']);
    expect(obs.group_list).toEqual(['from-group']);
    expect(obs.saved).toEqual({ local: 'defect', server: ['defect', '#0000FF'] });
    expect([obs.subscribed, obs.unsubscribed]).toEqual([true, false]);
    expect(obs.group_saved).toBe('shared');
    expect(obs.promoted).toBe('named');
    expect(obs.after_promote).toEqual(['from-group', 'named']);
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Label Not Found' });
    expect(obs.group_deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Label Not Found' });
  });

  it('creates, lists, closes, promotes and deletes milestones and lists their issues', async () => {
    const obs = await section('milestones');
    expect(obs.created).toEqual({ iids: [1, 2], state: 'active', dates: ['2030-01-01', '2030-02-01'] });
    expect(obs.bad_dates).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'due_date': ['must be greater than start date']}" });
    expect(obs.issues).toEqual(['in v1']);
    expect(obs.merge_requests).toEqual([]);
    expect(obs.closed).toBe('closed');
    expect(obs.list_active).toEqual(['v2']);
    expect(obs.list_iids).toEqual(['v1']);
    expect(obs.promoted).toEqual({ title: 'v2', group_id: expect.any(Number) });
    expect(obs.group_list).toEqual(['v2']);
    expect(obs.group_created).toEqual({ iid: 2, title: 'group-made' });
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Not found' });
  });
});
