import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against group shares, bans and project list filters', () => {
  const { section } = pythonGitlabSuite('python_gitlab_projects_groups.py', { timeoutMs: 30_000 });

  it('shares and unshares a group through group.share and group.unshare; min_access_level lists what a member may push to', async () => {
    const obs = await section('shares');
    expect(obs.after_share).toEqual([{ group_id: expect.any(Number), group_name: expect.stringMatching(/^pglteam/), group_full_path: expect.stringMatching(/^pglteam/), group_access_level: 30, expires_at: '2999-12-31' }]);
    expect(obs.read_back).toEqual(obs.after_share);
    expect(obs.pushable).toEqual([true]);
    expect(obs.maintainable).toEqual([]);
    expect(obs.again).toEqual({ error: 'GitlabCreateError', code: 409, message: 'Shared with group has already been taken' });
    expect(obs.after_unshare).toEqual([]);
    expect(obs.unshare_again).toEqual({ error: 'GitlabDeleteError', code: 404, message: '404 Group Link Not Found' });
    expect(obs.pushable_after).toEqual([]);
  });

  it('bans and unbans through user.ban and user.unban', async () => {
    const obs = await section('bans');
    expect(obs.state).toBe('banned');
    expect(obs.read_back).toBe('banned');
    expect(obs.token).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.again).toEqual({ error: 'GitlabBanError', code: 403, message: 'You cannot ban banned users.' });
    expect(obs.unbanned).toEqual(['active', 'active']);
    expect(obs.unban_again).toEqual({ error: 'GitlabUnbanError', code: 403, message: 'You cannot unban active users.' });
    expect(obs.token_after).toBe(true);
  });
});
