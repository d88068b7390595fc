import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

/**
 * python-gitlab 3.12 drives issue links through its own manager (issue.links: create returns the
 * source and target issues, list, delete by issue_link_id) and reads weight events (issue 25,
 * item 3). Without the client every test fails, never skips.
 */
describe('python-gitlab 3.12 against issue links and weight events', () => {
  const suite = pythonGitlabSuite('python_gitlab_issue_links.py', { timeoutMs: 60_000 });

  it('links, lists from both sides, refuses a duplicate, unlinks, and reads weight events', async () => {
    const obs = await suite.section('links');
    expect(obs.created).toEqual([1, 2]);
    expect(obs.a_links).toEqual([[2, 'blocks']]);
    expect(obs.b_links).toEqual([
      [1, expect.any(Number), 'is_blocked_by'],
      [1, expect.any(Number), 'relates_to'],
    ]);
    expect(obs.b_links[0][1]).not.toBe(obs.b_links[1][1]);
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 409, message: 'Issue(s) already assigned' });
    expect(obs.missing_target).toMatchObject({ error: 'GitlabCreateError', code: 404 });
    expect(obs.blocking).toBe(1);
    expect(obs.after_delete).toEqual([1]);
    expect(obs.a_after_delete).toEqual([]);
    expect(obs.weights).toEqual([2, 5]);
    expect(obs.weight_event).toBe(5);
  });
});
