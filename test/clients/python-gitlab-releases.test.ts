import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against releases, release links and system hooks', () => {
  const { section } = pythonGitlabSuite('python_gitlab_releases.py', { timeoutMs: 60_000 });

  it('creates (a new tag from ref), lists, edits and deletes releases and their links through project.releases and release.links', async () => {
    const obs = await section('releases');
    expect(obs.created).toEqual({ tag: 'v1.0', name: 'One', milestones: ['m1'], links: ['bin'] });
    expect(obs.tag_exists).toEqual({ tag_name: 'v1.0', description: 'first' });
    expect(obs.listed).toEqual(['v1.0', 'v0.1']);
    expect(obs.edited).toBe('edited');
    expect(obs.duplicate).toEqual({ error: 'GitlabCreateError', code: 409, message: 'Release already exists' });
    expect(obs.no_ref).toEqual({ error: 'GitlabCreateError', code: 422, message: 'Ref is not specified' });
    expect(obs.link_listed).toEqual(['bin', 'docs']);
    expect(obs.link_edited).toBe('manual');
    expect(obs.link_gone).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Link Not Found' });
    expect(obs.after_delete).toEqual(['v1.0']);
    expect(obs.missing).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Release Not Found' });
  });

  it('manages system hooks through gl.hooks and sends the test event', async () => {
    const obs = await section('system_hooks');
    expect(obs.created).toEqual({ url: 'https://example.com/system', push_events: true, repository_update_events: true });
    expect(obs.listed).toEqual(['https://example.com/system']);
    expect(obs.got).toBe('https://example.com/system');
    expect(obs.tested).toBe('project_create');
    expect(obs.gone).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Not found' });
    expect(obs.bad_url).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'url': ['is invalid']}" });
  });
});
