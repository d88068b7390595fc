import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the Topics and Search APIs', () => {
  const suite = pythonGitlabSuite('python_gitlab_search.py', { timeoutMs: 30_000 });

  it('creates (with an avatar), lists, saves, merges and deletes topics; projects take and filter by them', async () => {
    const obs = await suite.section('topics');
    expect(obs.created).toEqual({ name: expect.stringMatching(/^pgltopic/), title: 'Pgl Topic', description: 'first', count: 0, avatar: true });
    expect(obs.project_topics).toEqual([obs.created.name]);
    expect(obs.listed).toEqual([obs.created.name]);
    expect(obs.fetched_count).toBe(1);
    expect(obs.saved).toBe('second');
    expect(obs.filtered).toBe(true);
    expect(obs.merged).toEqual({ id: true, count: 1 });
    expect(obs.project_after_merge).toEqual([expect.stringMatching(/^pglother/)]);
    expect(obs.missing).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Topic Not Found' });
    expect(obs.after_delete).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Topic Not Found' });
  });

  it('searches globally and in a project: issues, projects, blobs and commits', async () => {
    const obs = await suite.section('search');
    expect(obs.global_issues).toEqual([expect.stringMatching(/^Puffin \w+ sighting$/)]);
    expect(obs.global_projects).toBe(true);
    expect(obs.project_issues).toEqual(obs.global_issues);
    expect(obs.project_blobs).toEqual([['birds.txt', 1, expect.stringMatching(/^one puffin\w+ here\n$/)]]);
    expect(obs.project_commits).toEqual([expect.stringMatching(/^Add puffin/)]);
    expect(obs.bad_scope).toEqual({ error: 'GitlabSearchError', code: 400, message: 'scope does not have a valid value' });
  });
});
