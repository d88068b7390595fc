import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against group wikis (ee)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_group_wikis.py', { timeoutMs: 30_000 });

  it('creates, gets, lists, saves and deletes pages through group.wikis; a reporter reads, a stranger sees nothing', async () => {
    const obs = await section('group_wikis');
    expect(obs.fresh).toEqual([]);
    expect(obs.created).toEqual({ slug: 'Getting-started', title: 'Getting started', format: 'markdown', content: '# Hello\n', encoding: 'UTF-8' });
    expect(obs.nested).toBe('docs/Deep-page');
    expect(obs.got).toEqual({ slug: 'docs/Deep-page', format: 'asciidoc', content: '= Deep\n' });
    expect(obs.listed).toEqual(['Getting-started', 'docs/Deep-page']);
    expect(obs.listed_content).toEqual(['# Hello\n', '= Deep\n']);
    expect(obs.saved).toBe('= Deeper\n');
    expect(obs.reporter_reads).toBe('# Hello\n');
    expect(obs.reporter_writes).toMatchObject({ error: 'GitlabCreateError', code: 403 });
    expect(obs.stranger_reads).toMatchObject({ error: 'GitlabListError', code: 404 });
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Wiki Page Not Found' });
    expect(obs.after_delete).toEqual([]);
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 400 });
  });
});
