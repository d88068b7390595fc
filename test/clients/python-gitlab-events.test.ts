import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the events API', () => {
  const suite = pythonGitlabSuite('python_gitlab_events.py', { timeoutMs: 30_000 });

  it('lists events through gl.events, user.events and project.events with their filters', async () => {
    const obs = await suite.section('events');
    const author = expect.stringMatching(/^pglev/);
    expect(obs.mine.map((e: any) => [e.action_name, e.target_type])).toEqual([
      ['created', null],
      ['pushed new', null],
      ['pushed to', null],
      // The deleted project's own `created` went with it; its `destroyed` stays with its author.
      ['destroyed', 'Project'],
    ]);
    expect(obs.mine.every((e: any) => e.author_username === obs.mine[0].author_username)).toBe(true);
    expect(obs.mine[0]).toMatchObject({ author_username: author, project_id: obs.project_id });
    expect(obs.project_pushes).toEqual([
      {
        action_name: 'pushed to',
        target_type: null,
        author_username: author,
        project_id: obs.project_id,
        push_data: {
          commit_count: 1,
          action: 'pushed',
          ref_type: 'branch',
          commit_from: expect.stringMatching(/^[0-9a-f]{40}$/),
          commit_to: expect.stringMatching(/^[0-9a-f]{40}$/),
          ref: 'master',
          commit_title: 'Add notes',
          ref_count: null,
        },
      },
      {
        action_name: 'pushed new',
        target_type: null,
        author_username: author,
        project_id: obs.project_id,
        push_data: expect.objectContaining({ commit_count: 1, action: 'created', commit_from: null, ref: 'master', commit_title: 'Initial commit' }),
      },
    ]);
    // created, two pushes, the member joining and leaving.
    expect(obs.project_after).toBe(5);
    expect(obs.project_before).toBe(0);
    expect(obs.user_events_by_root).toEqual(['destroyed', 'pushed to', 'pushed new', 'created']);
    expect(obs.member_events).toEqual(['left', 'joined']);
    expect(obs.destroyed).toEqual([expect.stringMatching(new RegExp(`/pglevdoomed`))]);
    // Anonymous: the public project's events, and 401 for "my events".
    expect(obs.anonymous_user_events).toBe(3);
    expect(obs.anonymous_own).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.bad_action).toMatchObject({ error: 'GitlabListError', code: 400, message: 'action does not have a valid value' });
  });
});
