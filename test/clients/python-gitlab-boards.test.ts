import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against issue boards (project and group boards, board lists)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_boards.py', { timeoutMs: 30_000 });

  it('creates, gets, lists and deletes project boards, and creates, moves (list.save), gets and deletes their lists through project.boards and board.lists', async () => {
    const obs = await section('project_boards');
    expect(obs.fresh).toEqual([]);
    expect(obs.created).toEqual({ name: 'Development', project: expect.stringMatching(/^pglboards.+\/pglboards/), lists: true });
    expect(obs.got).toBe('Development');
    expect(obs.listed).toEqual(['Development']);
    expect(obs.lists).toEqual([['todo', 0], ['doing', 1], ['done', 2]]);
    expect(obs.unknown_label).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'error': 'Label not found!'}" });
    expect(obs.duplicate).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'label': ['has already been taken']}" });
    expect(obs.moved).toEqual([['done', 0], ['todo', 1], ['doing', 2]]);
    expect(obs.got_list).toEqual({ label: 'todo', position: 1 });
    expect(obs.after_delete).toEqual([['done', 0], ['todo', 1]]);
    expect(obs.after_object_delete).toEqual([['done', 0]]);
    expect(obs.missing_list).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Not found' });
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Board Not Found' });
  });

  it('creates, lists and deletes group boards and their lists through group.boards and board.lists', async () => {
    const obs = await section('group_boards');
    expect(obs.fresh).toEqual([]);
    expect(obs.created).toEqual({ name: 'Team', group: true, project: null });
    expect(obs.lists).toEqual([['next', 0], ['now', 1]]);
    expect(obs.moved).toEqual([['now', 0], ['next', 1]]);
    expect(obs.after_delete).toEqual([['now', 0]]);
    expect(obs.listed).toEqual(['Team']);
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Board Not Found' });
  });
});
