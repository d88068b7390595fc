import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against snippets', () => {
  const { section } = pythonGitlabSuite('python_gitlab_snippets.py', { timeoutMs: 60_000 });

  it('creates, reads, saves, lists and deletes personal snippets through gl.snippets', async () => {
    const obs = await section('personal');
    expect(obs.created).toEqual({ title: 'Hello', file_name: 'hello.py', visibility: 'public', files: ['hello.py'] });
    expect(obs.content).toBe("print('hi')\n");
    expect(obs.got).toEqual({ title: 'Hello', author: true, project_id: null });
    expect(obs.saved).toEqual({ title: 'Hello again', content: "print('again')\n" });
    expect(obs.own_list).toEqual(['Hello again']);
    expect(obs.public_list).toBe(true);
    expect(obs.user_agent_detail).toEqual(['akismet_submitted', 'ip_address', 'user_agent']);
    expect(obs.user_agent_detail_denied).toMatchObject({ error: 'GitlabGetError', code: 403 });
    expect(obs.anonymous_get).toBe('Hello again');
    expect(obs.missing_file_name).toMatchObject({ error: 'GitlabHttpError', code: 400, message: 'file_name is missing' });
    expect(obs.deleted).toMatchObject({ error: 'GitlabGetError', code: 404, message: '404 Snippet Not Found' });
  });

  it('drives project.snippets with notes, discussions and award emoji', async () => {
    const obs = await section('project');
    expect(obs.created).toEqual({ title: 'Proj', project_id: true, description: 'd', file_name: 'a.md' });
    expect(obs.content).toBe('# a\n');
    expect(obs.listed).toEqual(['Proj']);
    expect(obs.renamed).toBe('b.md');
    expect(obs.notes).toEqual(['a note']);
    expect(obs.note_type).toBe('Snippet');
    expect(obs.discussions).toEqual([['a note'], ['a thread', 'a reply']]);
    expect(obs.awards).toEqual(['tada']);
    expect(obs.award_type).toBe('Snippet');
    expect(obs.user_agent_detail).toEqual(['akismet_submitted', 'ip_address', 'user_agent']);
    expect(obs.stranger).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.after_delete).toEqual([]);
  });
});
