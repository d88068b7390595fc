import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the rest of the index (broadcast messages, settings, statistics, license templates, access requests, markdown)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_administration.py', { timeoutMs: 30_000 });

  it('creates, saves, lists (anonymously) and deletes broadcast messages through gl.broadcastmessages', async () => {
    const obs = await section('broadcasts');
    expect(obs.created).toEqual({ message: expect.stringMatching(/^pgl broadcast /), color: '#112233', levels: [30], active: true });
    expect(obs.saved).toMatch(/^pgl changed /);
    expect(obs.listed).toBe(true);
    expect(obs.missing).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Broadcast message Not Found' });
  });

  it('reads and saves gl.settings, reads gl.statistics and gl.get_license(); a non-admin is refused', async () => {
    const obs = await section('settings');
    expect(obs.read).toEqual({ signup: true, visibility: 'private', restricted: [] });
    expect(obs.saved).toEqual({ limit: 42, restricted: ['internal'] });
    expect(obs.statistics.snippets).toBe('0');
    expect(obs.statistics.users).toMatch(/^\d[\d,]*$/);
    expect(obs.license).toBe('premium');
    expect(obs.forbidden).toMatchObject({ error: 'GitlabGetError', code: 403 });
  });

  it('lists and fills license templates through gl.licenses', async () => {
    const obs = await section('licenses');
    expect(obs.popular).toEqual(['apache-2.0', 'gpl-3.0-only', 'mit']);
    expect(obs.mit).toEqual({ key: 'mit', name: 'MIT License', filled: true });
    expect(obs.missing).toEqual({ error: 'GitlabGetError', code: 404, message: '404 License Not Found' });
  });

  it('requests, lists, approves and denies access through project.accessrequests and group.accessrequests', async () => {
    const obs = await section('access_requests');
    expect(obs.listed).toEqual([obs.requested.id]);
    expect(obs.member).toBe(20);
    expect(obs.after).toEqual([]);
    expect(obs.denied).toEqual([]);
  });

  it('renders markdown through gl.markdown', async () => {
    const obs = await section('markdown');
    expect(obs).toEqual({ linked: true, script: false, plain: '<p><strong>b</strong></p>\n' });
  });
});
