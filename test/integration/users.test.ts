import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const BASIC_KEYS = ['avatar_url', 'id', 'name', 'state', 'username', 'web_url'];

describe('users', () => {
  let site: TestSite;
  let alice: TestUser;
  beforeAll(async () => {
    site = await startSite();
    alice = await createUser(site, { bio: 'hello', location: 'Lyon' });
  });
  afterAll(() => site.stop());

  describe('GET /users', () => {
    it('gives admins the admin view and others the basic view, newest first', async () => {
      const admin = await site.api('/users');
      expect(admin.status).toBe(200);
      expect(admin.body[0]).toMatchObject({ id: alice.id, is_admin: false, email: alice.email, identities: [] });
      const ids = admin.body.map((user: { id: number }) => user.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      const member = await site.api('/users', { as: alice.token });
      expect(Object.keys(member.body[0]).sort()).toEqual(BASIC_KEYS);
    });

    it('requires a username from anonymous callers', async () => {
      expect(await site.api('/users', { as: null })).toMatchObject({ status: 403, body: { message: '403 Forbidden - Not authorized to access /api/v4/users' } });
      const found = await site.api(`/users?username=${alice.username.toUpperCase()}`, { as: null });
      expect(found.body.map((user: { id: number }) => user.id)).toEqual([alice.id]);
    });

    it('filters by active, blocked, search, external, identities and creation time', async () => {
      const blocked = await createUser(site, { name: 'Blocky McBlock' });
      await site.api(`/users/${blocked.id}/block`, { method: 'POST' });
      const external = await createUser(site, { external: true, extern_uid: 'uid=ext,dc=example', provider: 'ldapmain' });
      const idsOf = async (query: string, as?: string) => (await site.api(`/users?${query}&per_page=100`, { as })).body.map((user: { id: number }) => user.id);

      expect(await idsOf('blocked=true')).toEqual([blocked.id]);
      expect(await idsOf('active=True')).not.toContain(blocked.id);
      expect(await idsOf('search=blocky')).toEqual([blocked.id]);
      expect(await idsOf('external=true')).toEqual([external.id]);
      expect(await idsOf('extern_uid=uid%3Dext%2Cdc%3Dexample&provider=ldapmain')).toEqual([external.id]);
      expect(await idsOf(`search=${encodeURIComponent(alice.email.slice(0, 6))}`)).toContain(alice.id);
      // Non-admins find a user by email only by the exact address.
      expect(await idsOf(`search=${encodeURIComponent(alice.email.slice(0, -1))}`)).toEqual([alice.id]);
      expect(await idsOf(`search=${encodeURIComponent(alice.email.slice(0, -1))}`, alice.token)).toEqual([]);
      expect(await idsOf(`search=${encodeURIComponent(alice.email)}`, alice.token)).toEqual([alice.id]);

      const created = (await site.api(`/users/${external.id}`)).body.created_at as string;
      expect(await idsOf(`created_after=${encodeURIComponent(created.replace('Z', '+00:00'))}`)).not.toContain(external.id);
      expect(await idsOf(`created_before=${encodeURIComponent(created)}`)).not.toContain(external.id);
      expect(await idsOf(`created_after=2000-01-01`)).toContain(external.id);
      // A plain `+` in a query value is a space, so the offset must travel as %2B (SPEC: Query-string encoding).
      expect((await site.api(`/users?created_after=2000-01-01T00:00:00+01:00`)).status).toBe(400);
      expect((await site.api(`/users?created_after=2000-01-01T00:00:00%2B01:00`)).status).toBe(200);

      expect((await site.api('/users?external=true', { as: alice.token })).status).toBe(403);
      expect((await site.api('/users?extern_uid=x', {})).status).toBe(400);
      expect((await site.api('/users?active=maybe')).body).toEqual({ message: 'active is invalid' });
    });

    it('filters by custom attributes, for admins', async () => {
      const tagged = await createUser(site);
      const put = await site.api(`/users/${tagged.id}/custom_attributes/team`, { method: 'PUT', body: { value: 'geo' } });
      expect(put).toMatchObject({ status: 200, body: { key: 'team', value: 'geo' } });
      expect((await site.api('/users?custom_attributes[team]=geo')).body.map((user: { id: number }) => user.id)).toEqual([tagged.id]);
      expect((await site.api(`/users/${tagged.id}/custom_attributes`)).body).toEqual([{ key: 'team', value: 'geo' }]);
      expect((await site.api(`/users/${tagged.id}/custom_attributes/team`)).body).toEqual({ key: 'team', value: 'geo' });
      expect((await site.api(`/users/${tagged.id}/custom_attributes/team`, { as: alice.token })).status).toBe(403);
      expect((await site.api(`/users/${tagged.id}/custom_attributes/team`, { method: 'DELETE' })).status).toBe(204);
      expect(await site.api(`/users/${tagged.id}/custom_attributes/team`)).toMatchObject({ status: 404, body: { message: '404 Custom Attribute Not Found' } });
    });
  });

  describe('GET /users/:id', () => {
    it('shows the public view to users and the admin view to admins', async () => {
      const other = await site.api(`/users/${alice.id}`, { as: alice.token });
      expect(other.body).toMatchObject({ id: alice.id, bio: 'hello', location: 'Lyon', skype: '', organization: null });
      expect(other.body.email).toBeUndefined();
      const admin = await site.api(`/users/${alice.id}`);
      expect(admin.body).toMatchObject({ email: alice.email, is_admin: false, shared_runners_minutes_limit: null, can_create_project: true });
    });

    it('answers 404 User and 400 for a malformed id', async () => {
      expect(await site.api('/users/999999')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
      expect(await site.api('/users/abc')).toMatchObject({ status: 400, body: { message: 'id is invalid' } });
    });
  });

  describe('POST /users', () => {
    it('creates a user with every optional attribute', async () => {
      const response = await site.api('/users', {
        method: 'POST',
        body: {
          email: 'full@example.com', username: 'full.user', name: 'Full User', password: 'secret-pass', skype: 'sk', linkedin: 'li', twitter: 'tw',
          website_url: 'https://example.com', organization: 'Org', projects_limit: 5, extern_uid: 'full', provider: 'github', bio: 'b', location: 'l',
          admin: 'true', can_create_group: false, skip_confirmation: true, external: false, shared_runners_minutes_limit: 60,
        },
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        username: 'full.user', email: 'full@example.com', skype: 'sk', linkedin: 'li', twitter: 'tw', website_url: 'https://example.com',
        organization: 'Org', projects_limit: 5, identities: [{ provider: 'github', extern_uid: 'full' }], can_create_group: false, external: false,
      });
      expect(response.body.confirmed_at).toMatch(/^\d{4}-/);
      expect(response.body.is_admin).toBeUndefined();
      expect((await site.api(`/users/${response.body.id}`)).body).toMatchObject({ is_admin: true, shared_runners_minutes_limit: 60 });
    });

    it('accepts attributes in the query string with an empty JSON body, as python-gitlab sends them', async () => {
      const response = await site.api('/users?email=q@example.com&username=queryuser&name=Query%20User&reset_password=True', { method: 'POST', body: {} });
      expect(response.status).toBe(201);
      expect(response.body.username).toBe('queryuser');
    });

    it('accepts multipart with an avatar and ignores empty parts', async () => {
      const form = new FormData();
      form.append('email', 'pic@example.com');
      form.append('username', 'pictured');
      form.append('name', 'Pictured');
      form.append('password', 'pictured-pass');
      form.append('admin', '0');
      form.append('file', new Blob([]), '');
      form.append('avatar', new Blob([Buffer.from('\x89PNG fake image bytes')], { type: 'image/png' }), 'avatar.png');
      const response = await site.api('/users', { method: 'POST', form });
      expect(response.status).toBe(201);
      expect(response.body.avatar_url).toMatch(/\/uploads\/-\/system\/user\/avatar\/\d+\/avatar\.png$/);
      const avatar = await site.api(new URL(response.body.avatar_url).pathname, { as: null });
      expect(avatar.status).toBe(200);
      expect(avatar.text).toContain('PNG fake image bytes');

      const bad = new FormData();
      bad.append('avatar', new Blob(['x']), 'avatar.exe');
      expect((await site.api(`/users/${response.body.id}`, { method: 'PUT', form: bad })).body.message.avatar[0]).toMatch(/file format is not supported/);
    });

    it('rejects missing, invalid and taken attributes', async () => {
      expect(await site.api('/users', { method: 'POST', body: { username: 'x1', name: 'X', password: 'password1' } })).toMatchObject({
        status: 400,
        body: { message: 'email is missing' },
      });
      expect((await site.api('/users', { method: 'POST', body: { email: 'n@example.com', username: 'n1', name: 'N' } })).body.message).toBe(
        'password, reset_password are missing, at least one parameter must be provided',
      );
      const invalid = await site.api('/users', {
        method: 'POST',
        body: { email: 'not-an-email', username: '-bad', name: 'N', password: 'short', bio: 'x'.repeat(256) },
      });
      expect(invalid.status).toBe(400);
      expect(Object.keys(invalid.body.message).sort()).toEqual(['bio', 'email', 'password', 'username']);
      expect(invalid.body.message.bio).toEqual(['is too long (maximum is 255 characters)']);
      expect((await site.api('/users', { method: 'POST', body: { email: 'api@example.com', username: 'api', name: 'N', password: 'password1' } })).status).toBe(400);

      const taken = await site.api('/users', { method: 'POST', body: { email: 'other@example.com', username: alice.username.toUpperCase(), name: 'N', password: 'password1' } });
      expect(taken).toMatchObject({ status: 409, body: { message: 'Username has already been taken' } });
      const email = await site.api('/users', { method: 'POST', body: { email: alice.email.toUpperCase(), username: 'fresh1', name: 'N', password: 'password1' } });
      expect(email).toMatchObject({ status: 409, body: { message: 'Email has already been taken' } });
      expect((await site.api('/users', { method: 'POST', body: { email: 'z@example.com', username: 'z1', name: 'Z', password: 'password1', projects_limit: 'many' } })).body).toEqual({
        message: 'projects_limit is invalid',
      });
    });

    it('is for admins only', async () => {
      const body = { email: 'nope@example.com', username: 'nope', name: 'Nope', password: 'password1' };
      expect((await site.api('/users', { method: 'POST', body, as: alice.token })).status).toBe(403);
      expect((await site.api('/users', { method: 'POST', body, as: null })).status).toBe(401);
    });
  });

  describe('PUT /users/:id', () => {
    it('updates attributes, keeping the unchanged required ones python-gitlab resends', async () => {
      const user = await createUser(site);
      const response = await site.api(`/users/${user.id}`, { method: 'PUT', body: { email: user.email, username: user.username, name: 'Renamed', bio: 'new bio', admin: false } });
      expect(response).toMatchObject({ status: 200, body: { name: 'Renamed', bio: 'new bio' } });
      const identity = await site.api(`/users/${user.id}`, { method: 'PUT', body: { provider: 'ldapmain', extern_uid: 'uid=a' } });
      expect(identity.body.identities).toEqual([{ provider: 'ldapmain', extern_uid: 'uid=a' }]);
    });

    it('answers 409 on a taken email or username, 400 on invalid values, 404 on a missing user', async () => {
      const user = await createUser(site);
      expect(await site.api(`/users/${user.id}`, { method: 'PUT', body: { email: alice.email } })).toMatchObject({ status: 409, body: { message: 'Email has already been taken' } });
      expect(await site.api(`/users/${user.id}`, { method: 'PUT', body: { username: alice.username } })).toMatchObject({ status: 409 });
      expect((await site.api(`/users/${user.id}`, { method: 'PUT', body: { bio: 'x'.repeat(300) } })).status).toBe(400);
      expect((await site.api('/users/424242', { method: 'PUT', body: { name: 'x' } })).status).toBe(404);
      expect((await site.api(`/users/${user.id}`, { method: 'PUT', body: { name: 'x' }, as: alice.token })).status).toBe(403);
      expect((await site.api(`/users/${user.id}`)).body.bio).toBeNull();
    });
  });

  describe('DELETE /users/:id', () => {
    it('deletes a user with their tokens, with or without hard_delete', async () => {
      const soft = await createUser(site);
      const hard = await createUser(site);
      expect((await site.api(`/users/${soft.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await site.api(`/users/${hard.id}?hard_delete=True`, { method: 'DELETE' })).status).toBe(204);
      expect((await site.api(`/users/${soft.id}`)).status).toBe(404);
      expect((await site.api('/user', { as: hard.token })).status).toBe(401);
      expect((await site.api(`/users/${soft.id}`, { method: 'DELETE' })).status).toBe(404);
      expect((await site.api(`/users/${alice.id}`, { method: 'DELETE', as: alice.token })).status).toBe(403);
    });

    it('deletes the personal projects, and with hard_delete the groups the user solely owns', async () => {
      for (const hardDelete of [false, true]) {
        const owner = await createUser(site, { can_create_group: true });
        const personal = await createProject(site, {}, owner.token);
        const solo = await createGroup(site, {}, owner.token);
        const shared = await createGroup(site, {}, owner.token);
        await addMember(site, 'groups', shared.id, alice, 50, owner.token);
        const deleted = await site.api(`/users/${owner.id}${hardDelete ? '?hard_delete=true' : ''}`, { method: 'DELETE' });
        expect(deleted.status).toBe(204);
        expect((await site.api(`/projects/${personal.id}`)).status).toBe(404);
        expect((await site.api(`/namespaces/${owner.username}`)).status).toBe(404);
        expect((await site.api(`/groups/${solo.id}`)).status).toBe(hardDelete ? 404 : 200);
        expect((await site.api(`/groups/${shared.id}`)).status).toBe(200);
      }
    });
  });

  describe('block and unblock', () => {
    it('answers true when the state changed and false when it did not', async () => {
      const user = await createUser(site);
      expect(await site.api(`/users/${user.id}/block`, { method: 'POST' })).toMatchObject({ status: 201, body: true });
      expect((await site.api(`/users/${user.id}`)).body.state).toBe('blocked');
      expect((await site.api(`/users/${user.id}/block`, { method: 'POST' })).body).toBe(false);
      expect((await site.api(`/users/${user.id}/unblock`, { method: 'POST' })).body).toBe(true);
      expect((await site.api(`/users/${user.id}/unblock`, { method: 'POST' })).body).toBe(false);
      expect((await site.api('/users/987654/block', { method: 'POST' })).status).toBe(404);
      expect((await site.api(`/users/${user.id}/block`, { method: 'POST', as: alice.token })).status).toBe(403);
    });

    it('keeps a block set by LDAP synchronisation', async () => {
      const user = await createUser(site);
      site.site.db.prepare("UPDATE users SET state = 'ldap_blocked' WHERE id = ?").run(user.id);
      expect((await site.api(`/users/${user.id}`)).body.state).toBe('blocked');
      expect((await site.api(`/users/${user.id}/unblock`, { method: 'POST' })).status).toBe(403);
      expect((await site.api(`/users/${user.id}/block`, { method: 'POST' })).status).toBe(403);
      expect((await site.api('/users?blocked=true')).body.map((u: { id: number }) => u.id)).toContain(user.id);
    });
  });

  describe('GET /user', () => {
    it('shows the current user, without is_admin for non-admins', async () => {
      const me = await site.api('/user', { as: alice.token });
      expect(me.body).toMatchObject({ id: alice.id, email: alice.email, web_url: `${site.url}/${alice.username}` });
      expect(me.body.is_admin).toBeUndefined();
      expect((await site.api('/user')).body.is_admin).toBe(true);
      expect((await site.api('/user', { as: null })).status).toBe(401);
    });
  });

  describe('GET /user/activities', () => {
    it('lists users active since `from`, oldest first, for admins', async () => {
      const user = await createUser(site);
      site.site.db.prepare("UPDATE users SET last_activity_on = '2001-01-01' WHERE id = ?").run(user.id);
      const old = await site.api('/user/activities?from=2000-06-01');
      expect(old.body[0]).toEqual({ username: user.username, last_activity_on: '2001-01-01', last_activity_at: '2001-01-01' });
      expect(old.body.map((entry: { username: string }) => entry.username)).toContain(alice.username);
      const dates = old.body.map((entry: { last_activity_on: string }) => entry.last_activity_on);
      expect(dates).toEqual([...dates].sort());
      // The default window is six months, so a 2001 activity is out of it.
      expect((await site.api('/user/activities')).body.map((entry: { username: string }) => entry.username)).not.toContain(user.username);
      expect((await site.api('/user/activities?from=yesterday')).status).toBe(400);
      expect((await site.api('/user/activities', { as: alice.token })).status).toBe(403);
    });

    it('records API use at most once a day', async () => {
      const user = await createUser(site);
      const before = (await site.api(`/users/${user.id}`)).body.last_activity_on;
      expect(before).toBeNull();
      await site.api('/user', { as: user.token });
      expect((await site.api(`/users/${user.id}`)).body.last_activity_on).toBe(new Date().toISOString().slice(0, 10));
    });
  });

  describe('impersonation tokens', () => {
    it('creates, lists by state, gets and revokes', async () => {
      const user = await createUser(site);
      const created = await site.api(`/users/${user.id}/impersonation_tokens`, { method: 'POST', body: { name: 'ci', scopes: ['api', 'read_user'], expires_at: '2099-01-01' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'ci', scopes: ['api', 'read_user'], active: true, revoked: false, impersonation: true, expires_at: '2099-01-01' });
      expect(created.body.token).toMatch(/^glpat-/);
      const expired = await site.api(`/users/${user.id}/impersonation_tokens`, { method: 'POST', body: { name: 'old', scopes: 'api', expires_at: '2001-01-01' } });
      expect(expired.body.active).toBe(false);

      const ids = async (state: string) => (await site.api(`/users/${user.id}/impersonation_tokens?state=${state}`)).body.map((t: { id: number }) => t.id);
      expect(await ids('active')).toEqual([created.body.id]);
      expect(await ids('inactive')).toEqual([expired.body.id]);
      expect((await ids('all')).sort()).toEqual([created.body.id, expired.body.id].sort());
      const one = await site.api(`/users/${user.id}/impersonation_tokens/${created.body.id}`);
      expect(one.body.token).toBeUndefined();

      expect((await site.api(`/users/${user.id}/impersonation_tokens/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await site.api(`/users/${user.id}/impersonation_tokens/${created.body.id}`)).body).toMatchObject({ revoked: true, active: false });
      expect(await ids('active')).toEqual([]);
    });

    it('rejects bad input', async () => {
      const user = await createUser(site);
      const base = `/users/${user.id}/impersonation_tokens`;
      expect((await site.api(base, { method: 'POST', body: { scopes: ['api'] } })).body).toEqual({ message: 'name is missing' });
      expect((await site.api(base, { method: 'POST', body: { name: 'x' } })).body).toEqual({ message: 'scopes is missing' });
      expect((await site.api(base, { method: 'POST', body: { name: 'x', scopes: ['sudo'] } })).body).toEqual({ message: { scopes: ['can only contain available scopes'] } });
      expect((await site.api(base, { method: 'POST', body: { name: 'x', scopes: ['api'], expires_at: '2020-13-45' } })).body).toEqual({ message: 'expires_at is invalid' });
      expect((await site.api(`${base}?state=weird`)).body).toEqual({ message: 'state does not have a valid value' });
      expect((await site.api(`${base}/99999`)).body).toEqual({ message: '404 Impersonation Token Not Found' });
      expect((await site.api(base, { as: user.token })).status).toBe(403);
      expect((await site.api('/users/99999/impersonation_tokens')).body).toEqual({ message: '404 User Not Found' });
    });
  });
});

/**
 * DELETE /users/:id and the issue tracker (issue 14, item 9): without hard_delete the user's issues,
 * notes, award emoji, the todos they caused and their events go to the ghost user; with it they are
 * gone, with what points at the issues, and the projects' open_issues_count follows.
 */
describe('a deleted user’s tracker contributions', () => {
  let site: TestSite;
  let owner: TestUser;
  let assignee: TestUser;
  let project: any;
  const db = () => site.site.db;
  const count = (sql: string, ...params: unknown[]) => db().prepare(`SELECT count(*) FROM ${sql}`).pluck().get(...params) as number;

  beforeAll(async () => {
    site = await startSite();
    [owner, assignee] = await Promise.all([createUser(site), createUser(site)]);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMember(site, 'projects', project.id, assignee, 30);
  });
  afterAll(() => site.stop());

  /** A member who opens an issue (labelled, assigned: a todo they cause), comments on the owner's issue and awards an emoji there. */
  async function contributor() {
    const user = await createUser(site);
    await addMember(site, 'projects', project.id, user, 30);
    const own = await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: user.token, body: { title: `By ${user.username}`, labels: 'bug', assignee_ids: [assignee.id] } });
    expect(own.status, own.text).toBe(201);
    const target = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Commented on' } })).body;
    const now = new Date().toISOString();
    const noteId = Number(
      db()
        .prepare("INSERT INTO notes (noteable_type, noteable_id, project_id, author_id, body, discussion_id, created_at, updated_at) VALUES ('Issue', ?, ?, ?, 'A comment', ?, ?, ?)")
        .run(target.id, project.id, user.id, `d${user.id}`, now, now).lastInsertRowid,
    );
    db().prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('thumbsup', ?, 'Issue', ?, ?, ?)").run(user.id, target.id, now, now);
    db().prepare("INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES ('tada', ?, 'Note', ?, ?, ?)").run(owner.id, noteId, now, now);
    return { user, issue: own.body, target, noteId };
  }

  it('without hard_delete moves issues, notes, award emoji, todos caused and events to the ghost user', async () => {
    const { user, issue, target, noteId } = await contributor();
    const openBefore = (await site.api(`/projects/${project.id}`)).body.open_issues_count;
    expect((await site.api(`/users/${user.id}`, { method: 'DELETE' })).status).toBe(204);
    const ghost = db().prepare('SELECT id, username FROM users WHERE ghost = 1').get() as { id: number; username: string };
    const shown = await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ author: { id: ghost.id, username: ghost.username, state: 'blocked' }, labels: ['bug'], assignees: [{ id: assignee.id }] });
    expect(db().prepare('SELECT author_id FROM notes WHERE id = ?').pluck().get(noteId)).toBe(ghost.id);
    expect(count("award_emoji WHERE awardable_type = 'Issue' AND awardable_id = ? AND user_id = ?", target.id, ghost.id)).toBe(1);
    const [todo] = (await site.api('/todos', { as: assignee.token })).body.filter((t: any) => t.target.id === issue.id);
    expect(todo.author).toMatchObject({ id: ghost.id, username: ghost.username });
    const events = (await site.api(`/projects/${project.id}/events?target_type=issue`, { as: owner.token })).body.filter((e: any) => e.target_id === issue.id);
    expect(events.map((e: any) => [e.action_name, e.author_username])).toEqual([['opened', ghost.username]]);
    expect((await site.api(`/projects/${project.id}`)).body.open_issues_count).toBe(openBefore);
  });

  it('with hard_delete removes them, with what points at the issue, and the open count follows', async () => {
    const { user, issue, target, noteId } = await contributor();
    const openBefore = (await site.api(`/projects/${project.id}`)).body.open_issues_count;
    expect((await site.api(`/users/${user.id}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/projects/${project.id}/issues/${issue.iid}`, { as: owner.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}`)).body.open_issues_count).toBe(openBefore - 1);
    expect(count("label_links WHERE target_type = 'Issue' AND target_id = ?", issue.id)).toBe(0);
    expect(count("todos WHERE target_type = 'Issue' AND target_id = ?", issue.id)).toBe(0);
    expect(count("events WHERE target_type = 'Issue' AND target_id = ?", issue.id)).toBe(0);
    expect(count("user_agent_details WHERE subject_type = 'Issue' AND subject_id = ?", issue.id)).toBe(0);
    expect(count('notes WHERE id = ?', noteId)).toBe(0);
    expect(count("award_emoji WHERE awardable_type = 'Note' AND awardable_id = ?", noteId)).toBe(0);
    expect(count("award_emoji WHERE awardable_type = 'Issue' AND awardable_id = ?", target.id)).toBe(0);
    expect(count('events WHERE author_id = ?', user.id)).toBe(0);
    expect((await site.api(`/projects/${project.id}/issues/${target.iid}`, { as: owner.token })).body.upvotes).toBe(0);
  });
});
