import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against approval rules and access tokens', () => {
  const { section } = pythonGitlabSuite('python_gitlab_approval_rules.py', { timeoutMs: 120_000 });

  it('creates, saves, lists and deletes project and merge request rules; the rules gate the merge', async () => {
    const obs = await section('rules');
    expect(obs.created).toEqual({ name: 'Reviewers', rule_type: 'regular', users: [obs.reviewer] });
    expect(obs.listed).toEqual([['Reviewer', 1]]);
    expect(obs.invalid).toEqual({ error: 'GitlabCreateError', code: 400, message: "{'name': ['has already been taken']}" });
    expect(obs.state).toEqual({ overwritten: false, rules: [['Reviewer', false]] });
    expect(obs.own).toEqual({ name: 'Reviewer', source: { approvals_required: 1 }, users: [obs.reviewer] });
    expect(obs.own_listed).toEqual([['Reviewer', 1]]);
    expect(obs.own_got).toBe('Reviewer');
    expect(obs.overwritten).toBe(true);
    expect(obs.blocked).toMatchObject({ error: 'GitlabMRClosedError', code: 405 });
    expect(obs.approved).toEqual([['Reviewer', true]]);
    expect(obs.merged).toBe('merged');
    expect(obs.after).toEqual([]);
  }, 150_000);

  it('creates, lists and deletes project and group access tokens; the bot signs in and resets approvals', async () => {
    const obs = await section('tokens');
    expect(obs.created).toEqual({ name: 'bot', scopes: ['api'], access_level: 30, has_token: true });
    expect(obs.listed).toEqual([['bot', 30, true]]);
    expect(obs.bot.bot).toBe(true);
    expect(obs.bot.username).toMatch(/^project_\d+_bot_[0-9a-f]{32}$/);
    expect(obs.not_bot).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.reset).toBe(202);
    expect(obs.approved_by).toEqual([]);
    expect(obs.group_listed).toEqual([['group bot', 20]]);
    expect(obs.bad_scope).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.after).toEqual([]);
    expect(obs.revoked).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
  }, 150_000);
});
