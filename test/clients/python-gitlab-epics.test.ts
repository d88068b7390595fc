import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

/**
 * python-gitlab 3.12 drives epics through group.epics and their issues through epic.issues
 * (issue 16; GITLAB-NOTES 3.6: the client uses /groups/:id/epics, never the `-/` form). Without
 * the client every test fails, never skips.
 */
describe('python-gitlab 3.12 against epics', () => {
  const suite = pythonGitlabSuite('python_gitlab_epics.py', { timeoutMs: 60_000 });

  it('creates, lists with filters, gets, saves and deletes epics', async () => {
    const obs = await suite.section('epics');
    expect(obs.created).toEqual({ iid: 1, labels: ['plan', 'q1'], start_date: '2031-01-01', state: 'opened' });
    expect(obs.list).toEqual([2, 1]);
    expect(obs.list_labels).toEqual([1]);
    expect(obs.list_search).toEqual([2]);
    expect(obs.list_asc).toEqual([1, 2]);
    expect(obs.list_author).toBe(2);
    expect(obs.saved).toEqual({ title: 'First, edited', labels: ['later'] });
    expect(obs.bad_date).toMatchObject({ error: 'GitlabCreateError', code: 400, message: 'start_date is invalid' });
    expect(obs.missing).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.after_delete).toEqual([1]);
  });

  it('assigns, lists, reorders with move_before_id and move_after_id, and removes epic issues', async () => {
    const obs = await suite.section('epic_issues');
    const [a, b, c, d] = obs.links;
    expect(obs.listed).toEqual([a, b, c, d]);
    expect(obs.again).toMatchObject({ error: 'GitlabCreateError', code: 409 });
    expect(obs.after_before).toEqual([a, d, b, c]);
    expect(obs.after_after).toEqual([d, a, b, c]);
    expect(obs.after_delete).toEqual([d, a, b]);
  });
});
