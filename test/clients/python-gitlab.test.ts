import { describe, expect, it } from 'vitest';
import { gpgKeyPair, sshPublicKey } from '../helpers/keys.js';
import { MISSING_CLIENT, PYTHON, pythonGitlabSuite } from '../helpers/python.js';

describe('python-gitlab 3.12 against the Users API', () => {
  const suite = pythonGitlabSuite('python_gitlab_users.py');
  const section = suite.section;

  it(`runs python-gitlab 3.12 from ${PYTHON}`, () => {
    expect(suite.probe.code, `${MISSING_CLIENT}\n${suite.probe.stderr}`).toBe(0);
    expect(suite.probe.stdout.trim(), 'these assertions follow GITLAB-NOTES, written against python-gitlab 3.12').toMatch(/^3\.12\./);
  });

  it('authenticates without a base-URL warning and reads the version', async () => {
    const obs = await section('core');
    expect(obs.username).toBe('root');
    expect(obs.is_admin).toBe(true);
    expect(obs.web_url).toBe(`${suite.site.url}/root`);
    expect(obs.version).toMatch(/^\d+\.\d+\.\d+(-ee)?$/);
    expect(obs.revision).not.toBe('unknown');
  });

  it('creates, lists, pages, updates, blocks and deletes users', async () => {
    const obs = await section('users');
    expect(obs.created.dict).toMatchObject({ bio: 'first bio', state: 'active', has_is_admin: false });
    expect(obs.created.kwargs).toMatchObject({ confirmed: true });
    expect(obs.created.kwargs.email).toBe(`${obs.created.kwargs.username}@example.com`);

    expect(obs.search).toEqual([obs.created.dict.username]);
    expect(obs.by_username).toEqual([obs.by_username_expected]);
    expect(obs.active_has_first).toBe(true);

    // Following Link rel="next" with per_page=2 collects exactly X-Total distinct users.
    expect(obs.pages.total).toBeGreaterThanOrEqual(7);
    expect(obs.pages.total_pages).toBe(Math.ceil(obs.pages.total / 2));
    expect(obs.pages.collected).toBe(obs.pages.total);
    expect(obs.pages.distinct).toBe(obs.pages.collected);
    expect(obs.pages.get_all_collected).toBe(obs.pages.total);
    expect(obs.pages.includes_new).toBe(true);
    expect(obs.head).toEqual({ x_total: String(obs.pages.total), content_type: 'application/json' });

    expect(obs.updated).toEqual({ name_after_save: 'Renamed Pgl', name: 'Renamed Pgl', bio: 'second bio', username: obs.created.dict.username });

    // GITLAB-NOTES decision 7: true when the state changed, false when it did not.
    expect(obs.block).toEqual({ first: true, state_after_first: 'blocked', server_state: 'blocked', in_blocked_list: true, again: false });
    expect(obs.unblock).toEqual({ first: true, state_after_first: 'active', server_state: 'active', again: false });

    expect(obs.taken_username).toMatchObject({ error: 'GitlabCreateError', code: 409 });
    expect(obs.taken_username.message).toMatch(/username/i);
    expect(obs.taken_email).toMatchObject({ error: 'GitlabCreateError', code: 409 });
    expect(obs.missing_user).toMatchObject({ error: 'GitlabGetError', code: 404 });

    expect(obs.deleted.by_manager).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.deleted.hard).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.deleted.again).toMatchObject({ error: 'GitlabDeleteError', code: 404 });
  });

  it('manages SSH keys of a user and of the current user', async () => {
    const keys = [sshPublicKey('pgl@laptop'), sshPublicKey('root@desk')];
    const obs = await section('ssh_keys', { GEOFORGE_SSH_KEYS: JSON.stringify(keys) });
    expect(obs.admin.created).toMatchObject({ title: 'laptop', key: keys[0], has_created_at: true });
    expect(obs.admin.listed).toEqual([obs.admin.created.id]);
    expect(obs.admin.got).toBe('laptop');
    expect(obs.admin.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.admin.garbage).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.admin.after_delete).toEqual([]);
    expect(obs.admin.get_deleted).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.current).toEqual({ key: keys[1], listed: true, got: keys[1], after_delete: false });
  });

  it('manages GPG keys of a user and of the current user', async () => {
    const keys = [(await gpgKeyPair('pgl-gpg@example.com')).publicKey, (await gpgKeyPair('root-gpg@example.com')).publicKey];
    const obs = await section('gpg_keys', { GEOFORGE_GPG_KEYS: JSON.stringify(keys) });
    // POST /users/:id/gpg_keys and /user/gpg_keys answer 201 with the created key object, which
    // python-gitlab's gpgkeys.create needs (GITLAB-NOTES decision 3, not the SPEC's array).
    expect(obs.create).toMatchObject({ error: null, id: expect.any(Number), key_matches: true, has_created_at: true });
    expect(obs.listed).toBe(1);
    expect(obs.got).toMatchObject({ id: obs.create.id, key_matches: true, has_created_at: true });
    expect(obs.duplicate).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.after_delete).toBe(0);
    expect(obs.get_deleted).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.garbage).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.current_create).toMatchObject({ error: null, id: expect.any(Number), key_matches: true });
    expect(obs.current_listed).toBe(1);
    expect(obs.current_listed_ids).toEqual([obs.current_create.id]);
    expect(obs.current_after_delete).toBe(0);
  });

  it('manages secondary emails of a user and of the current user', async () => {
    const obs = await section('emails');
    expect(obs.admin.has_id).toBe(true);
    expect(obs.admin.listed).toEqual([obs.admin.created]);
    expect(obs.admin.got).toBe(obs.admin.created);
    expect(obs.admin.taken_secondary).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.admin.taken_primary).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.admin.after_delete).toEqual([]);
    expect(obs.current).toMatchObject({ listed: true, after_delete: false });
    expect(obs.current.get_deleted).toMatchObject({ error: 'GitlabGetError', code: 404 });
  });

  it('creates impersonation tokens that authenticate until revoked', async () => {
    const obs = await section('impersonation');
    expect(obs.created).toEqual({ has_token: true, scopes: ['api'], active: true, revoked: false, impersonation: true, expires_at: '2099-01-01' });
    expect(obs.active_list).toEqual([obs.token_id]);
    expect(obs.got).toEqual({ id: obs.token_id, name: 'pgl', active: true });
    expect(obs.before_revoke.username).toMatch(/^pgli/);
    expect(obs.before_revoke.is_admin).toBeNull();
    expect(obs.after_revoke).toMatchObject({ revoked: true, active: false, in_active_list: false, in_inactive_list: true, in_all_list: true });
    expect(obs.after_revoke.auth).toMatchObject({ error: 'GitlabAuthenticationError', code: 401 });
    expect(obs.missing).toMatchObject({ error: 'GitlabGetError', code: 404 });
    expect(obs.bad_scope).toMatchObject({ error: 'GitlabCreateError', code: 400 });
  });

  it('acts as another user through sudo', async () => {
    const obs = await section('sudo');
    expect(obs.user_by_username.username).toMatch(/^pgls/);
    expect(obs.user_by_username.is_admin).toBeNull();
    expect(obs.user_by_id).toBe(obs.user_by_username.username);
    expect(obs.list_as_user).toEqual({ count: 1, has_email: false });
    expect(obs.create_as_user).toMatchObject({ error: 'GitlabCreateError', code: 403 });
    expect(obs.unknown_user).toMatchObject({ error: 'GitlabHttpError', code: 404 });
    expect(obs.as_non_admin).toMatchObject({ error: 'GitlabHttpError', code: 403 });
    expect(obs.as_non_admin.message).toMatch(/Must be admin to use sudo/);
  });
});
