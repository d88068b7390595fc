import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against settings (badges, notification settings, user status, group hooks)', () => {
  const { section } = pythonGitlabSuite('python_gitlab_settings.py', { timeoutMs: 30_000 });

  it('creates, lists, saves, renders and deletes badges through project.badges and group.badges', async () => {
    const obs = await section('badges');
    expect(obs.fresh).toEqual([]);
    expect(obs.group_badge).toEqual({ kind: 'group', link: `https://ci.example.com/${obs.path}`, image: `https://ci.example.com/${obs.id}.svg` });
    expect(obs.project_badge).toEqual({ kind: 'project', link: `https://example.com/${obs.path}/-/tree/master`, image: expect.stringMatching(/^https:\/\/example\.com\/[0-9a-f]{40}\.svg$/) });
    expect(obs.listed.map((b: any) => b.kind)).toEqual(['group', 'project']);
    expect(obs.group_listed).toEqual(['group']);
    expect(obs.saved).toMatchObject({ kind: 'project', image: `https://example.com/${obs.id}.png` });
    expect(obs.rendered).toEqual({ name: null, link_url: 'https://x.test/%{project_path}', image_url: 'https://x.test/b.svg', rendered_link_url: `https://x.test/${obs.path}`, rendered_image_url: 'https://x.test/b.svg' });
    expect(obs.invalid).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'link_url': ['must be a valid URL']}" });
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Not found' });
    expect(obs.after).toEqual([]);
  });

  it('reads and saves notification settings through gl.notificationsettings, project.notificationsettings and group.notificationsettings', async () => {
    const obs = await section('notifications');
    expect(obs.global).toEqual({ level: 'participating', email: 'admin@example.com' });
    expect(obs.global_custom).toEqual({ level: 'custom', new_note: true, new_issue: false });
    expect(obs.global_after).toBe('participating');
    expect(obs.bad_email).toEqual({ error: 'GitlabUpdateError', code: 400, message: "{'notification_email': ['is not an email you own']}" });
    expect(obs.project).toEqual(['global', 'watch']);
    expect(obs.group).toEqual(['global', 'watch']);
    expect(obs.bad_level).toEqual({ error: 'GitlabUpdateError', code: 400, message: "'loud' is not a valid level" });
  });

  it('sets, reads and clears a status through gl.user.status and user.status', async () => {
    const obs = await section('status');
    expect(obs.fresh).toEqual([null, null]);
    expect(obs.saved).toEqual(['coffee', 'Brewing :coffee:', 'Brewing <gl-emoji title="coffee" data-name="coffee">☕</gl-emoji>']);
    expect(obs.seen).toEqual(['coffee', 'Brewing :coffee:']);
    expect(obs.bad_emoji).toEqual({ error: 'GitlabUpdateError', code: 400, message: "{'emoji': ['is not included in the list']}" });
    expect(obs.cleared).toBeNull();
  });

  it('creates, saves, lists and deletes group hooks through group.hooks', async () => {
    const obs = await section('group_hooks');
    expect(obs.fresh).toEqual([]);
    expect(obs.created).toEqual({ url: 'https://hooks.example.com/a', group_id: true, push: true, issues: true, token: false });
    expect(obs.saved).toEqual({ url: 'https://hooks.example.com/b', note: true });
    expect(obs.listed).toEqual(['https://hooks.example.com/b']);
    expect(obs.deleted).toEqual({ error: 'GitlabGetError', code: 404, message: '404 Group Hook Not Found' });
  });
});
