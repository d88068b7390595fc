import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../src/services/issuables/record-events.js';
import { addMember, addMembers, createGroup, createProject, createUser, createUsers, tokenFor, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

const EVENT_KEYS = ['action_name', 'author', 'author_id', 'author_username', 'created_at', 'id', 'project_id', 'target_id', 'target_iid', 'target_title', 'target_type', 'title'];

describe('events', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser, developer: TestUser, guest: TestUser, stranger: TestUser;
  /** A private project of `owner` with developer (30) and guest (10) members, pushed to by the developer. */
  let project: any;
  let publicProject: any;

  const git = (args: string[], cwd?: string) => gitClient(scratch, 20_000)(args, cwd);
  const commitFile = async (work: string, file: string, content: string, message: string) => {
    await writeFile(path.join(work, file), content);
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', message], work);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  };
  const db = () => site.site.db;
  const eventsOf = async (pathAndQuery: string, as?: string | null) => {
    const response = await site.api(pathAndQuery, { as });
    expect(response.status, response.text).toBe(200);
    return response.body as any[];
  };
  /** Sets an event's time, for the date filters: events otherwise all happen today. */
  const backdate = (id: number, createdAt: string) => db().prepare('UPDATE events SET created_at = ? WHERE id = ?').run(createdAt, id);

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-events-'));
    [owner, developer, guest, stranger] = await createUsers(site, 4);
    project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    publicProject = await createProject(site, { visibility: 'public' }, owner.token);
    await addMembers(site, 'projects', project.id, [[developer, 30], [guest, 10]], owner.token);
    // The developer pushes to master here: its protection lets developers push.
    const protection = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'master', push_access_level: 30, merge_access_level: 30 } });
    expect(protection.status).toBe(201);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  describe('what is recorded', () => {
    it('records a project created by its creator, with GitLab’s Event entity', async () => {
      const [created] = await eventsOf(`/projects/${publicProject.id}/events`, null);
      expect(Object.keys(created).sort()).toEqual(EVENT_KEYS);
      expect(created).toEqual({
        id: expect.any(Number),
        title: null,
        project_id: publicProject.id,
        action_name: 'created',
        target_id: null,
        target_iid: null,
        target_type: null,
        author_id: owner.id,
        target_title: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        author: { id: owner.id, name: expect.any(String), username: owner.username, state: 'active', avatar_url: null, web_url: `${site.url}/${owner.username}` },
        author_username: owner.username,
      });
    });

    it('records members joining and leaving, authored by the member, and no join for the owner', async () => {
      const events = await eventsOf(`/projects/${project.id}/events?sort=asc`, owner.token);
      expect(events.map((e) => [e.action_name, e.author_id])).toEqual([
        ['created', owner.id],
        ['joined', developer.id],
        ['joined', guest.id],
      ]);
      const leaver = await createUser(site);
      await addMember(site, 'projects', project.id, leaver, 20, owner.token);
      expect((await site.api(`/projects/${project.id}/members/${leaver.id}`, { method: 'DELETE', as: leaver.token })).status).toBe(204);
      const latest = await eventsOf(`/projects/${project.id}/events?per_page=2`, owner.token);
      expect(latest.map((e) => [e.action_name, e.author_username, e.target_type])).toEqual([
        ['left', leaver.username, null],
        ['joined', leaver.username, null],
      ]);
    });

    it('records group membership with the group and no project', async () => {
      const group = await createGroup(site, { visibility: 'public' }, owner.token);
      const member = await createUser(site);
      await addMember(site, 'groups', group.id, member, 30, owner.token);
      expect((await site.api(`/groups/${group.id}/members/${member.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
      const events = await eventsOf(`/users/${member.id}/events`, stranger.token);
      expect(events.map((e) => [e.action_name, e.project_id])).toEqual([
        ['left', null],
        ['joined', null],
      ]);
      const privateGroup = await createGroup(site, { visibility: 'private' }, owner.token);
      await addMember(site, 'groups', privateGroup.id, member, 30, owner.token);
      expect((await eventsOf(`/users/${member.id}/events`, stranger.token)).length).toBe(2);
      expect((await eventsOf(`/users/${member.id}/events`, member.token)).length).toBe(3);
    });

    it('records a fork as created by whoever forked it', async () => {
      const fork = await site.api(`/projects/${publicProject.id}/fork`, { method: 'POST', body: {}, as: stranger.token });
      expect(fork.status).toBe(201);
      const [created] = await eventsOf(`/projects/${fork.body.id}/events`, stranger.token);
      expect(created).toMatchObject({ action_name: 'created', author_id: stranger.id, project_id: fork.body.id });
    });
  });

  describe('pushes', () => {
    let work: string;
    let first: string;
    let second: string;
    let third: string;
    const pushEvents = async (query = '') => eventsOf(`/projects/${project.id}/events?action=pushed${query}`, owner.token);

    beforeAll(async () => {
      work = path.join(scratch, 'work');
      await git(['clone', '--quiet', remoteUrl(site.url, project, developer), work]);
      first = await commitFile(work, 'a.txt', 'a\n', 'first commit');
      second = await commitFile(work, 'b.txt', 'b\n', 'second commit\n\nwith a body that the title leaves out');
      await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], work);
    });

    it('records a new branch as "pushed new" with GitLab’s push_data', async () => {
      const [event] = await pushEvents();
      expect(event).toMatchObject({
        project_id: project.id,
        action_name: 'pushed new',
        author_id: developer.id,
        author_username: developer.username,
        target_type: null,
        push_data: { commit_count: 2, action: 'created', ref_type: 'branch', commit_from: null, commit_to: second, ref: 'master', commit_title: 'second commit', ref_count: null },
      });
    });

    it('records a push to a branch as "pushed to" from the old head, with a title cut to 70 characters', async () => {
      const title = `${'x'.repeat(80)}`;
      third = await commitFile(work, 'c.txt', 'c\n', title);
      await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], work);
      const [event] = await pushEvents();
      expect(event.action_name).toBe('pushed to');
      expect(event.push_data).toEqual({ commit_count: 1, action: 'pushed', ref_type: 'branch', commit_from: second, commit_to: third, ref: 'master', commit_title: `${'x'.repeat(67)}...`, ref_count: null });
    });

    it('records tags and deleted branches', async () => {
      await git(['tag', 'v1.0', first], work);
      await git(['push', '--quiet', 'origin', 'v1.0', `${first}:refs/heads/old`], work);
      const pushed = await pushEvents('&per_page=2');
      const byRef = Object.fromEntries(pushed.map((e) => [e.push_data.ref, e]));
      expect(byRef['v1.0']).toMatchObject({ action_name: 'pushed new', push_data: { ref_type: 'tag', action: 'created', commit_to: first, commit_count: 1, commit_title: 'first commit' } });
      expect(byRef.old).toMatchObject({ action_name: 'pushed new', push_data: { ref_type: 'branch', action: 'created', commit_count: 0, commit_title: null } });

      await git(['push', '--quiet', 'origin', ':refs/heads/old'], work);
      const [deleted] = await pushEvents();
      expect(deleted).toMatchObject({ action_name: 'deleted', push_data: { action: 'removed', ref: 'old', commit_from: first, commit_to: null, commit_count: 0 } });
    });

    it('records more than three refs changed alike in one push as one bulk event', async () => {
      await git(['push', '--quiet', 'origin', ...['b1', 'b2', 'b3', 'b4'].map((name) => `${third}:refs/heads/${name}`)], work);
      const [bulk, before] = await pushEvents('&per_page=2');
      expect(bulk).toMatchObject({
        action_name: 'pushed new',
        push_data: { commit_count: 0, action: 'created', ref_type: 'branch', commit_from: null, commit_to: null, ref: null, commit_title: null, ref_count: 4 },
      });
      expect(before.push_data.ref).toBe('old');
    });

    it('records commits made through the API as pushes', async () => {
      const response = await site.api(`/projects/${project.id}/repository/files/api.txt`, {
        method: 'POST',
        body: { branch: 'master', content: 'api', commit_message: 'add api.txt' },
        as: developer.token,
      });
      expect(response.status).toBe(201);
      const [event] = await pushEvents();
      expect(event).toMatchObject({ action_name: 'pushed to', author_id: developer.id, push_data: { ref: 'master', commit_count: 1, commit_title: 'add api.txt', commit_from: third } });
    });

    it('shows pushes to those who may read the code: not to a guest of a private project', async () => {
      expect((await eventsOf(`/projects/${project.id}/events?action=pushed`, developer.token)).length).toBeGreaterThan(0);
      const guestView = await eventsOf(`/projects/${project.id}/events`, guest.token);
      expect(guestView.length).toBeGreaterThan(0);
      expect(guestView.filter((e) => e.push_data)).toEqual([]);
      expect((await eventsOf(`/users/${developer.id}/events?action=pushed`, guest.token)).length).toBe(0);
    });
  });

  describe('the lists', () => {
    it('GET /events lists the caller’s own events, newest first, and needs a caller', async () => {
      const mine = await eventsOf('/events', developer.token);
      expect(mine.length).toBeGreaterThan(2);
      expect(mine.every((e) => e.author_id === developer.id)).toBe(true);
      expect(mine.map((e) => e.id)).toEqual([...mine.map((e) => e.id)].sort((a, b) => b - a));
      expect(await site.api('/events', { as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    });

    it('a read_user token may list the caller’s events', async () => {
      const token = tokenFor(site, developer.id, ['read_user']);
      expect((await site.api('/events', { as: token })).status).toBe(200);
      expect((await site.api(`/projects/${project.id}/events`, { as: token })).status).toBe(403);
    });

    it('GET /users/:id/events takes an id or a username, and hides events of projects the caller cannot see', async () => {
      const asOwner = await eventsOf(`/users/${developer.id}/events`, owner.token);
      expect(asOwner.length).toBeGreaterThan(0);
      expect(await eventsOf(`/users/${developer.username}/events`, owner.token)).toEqual(asOwner);
      expect(await eventsOf(`/users/${developer.id}/events`, stranger.token)).toEqual([]);
      expect(await eventsOf(`/users/${developer.id}/events`, null)).toEqual([]);
      const admin = await eventsOf(`/users/${developer.id}/events`);
      expect(admin.map((e) => e.id)).toEqual(asOwner.map((e) => e.id));
      expect(await site.api('/users/424242/events', { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
      expect(await site.api('/users/no-such-user/events', { as: null })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    });

    it('GET /users/:id/events shows public projects’ events to anyone', async () => {
      const anonymous = await eventsOf(`/users/${owner.id}/events`, null);
      expect(anonymous.length).toBeGreaterThan(0);
      expect(anonymous.every((e) => e.project_id === publicProject.id || e.project_id === null)).toBe(true);
    });

    it('GET /projects/:id/events answers 404 for a project the caller cannot see, by id or path', async () => {
      expect(await site.api(`/projects/${project.id}/events`, { as: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      expect(await site.api(`/projects/${project.id}/events`, { as: null })).toMatchObject({ status: 404 });
      expect(await site.api('/projects/424242/events', { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      expect((await site.api(`/projects/${encodeURIComponent(project.path_with_namespace)}/events`, { as: owner.token })).status).toBe(200);
      expect((await site.api(`/projects/${publicProject.id}/events`, { as: null })).status).toBe(200);
    });

    it('filters by action and target type, and sorts by id', async () => {
      const joined = await eventsOf(`/projects/${project.id}/events?action=joined`, owner.token);
      expect(joined.length).toBeGreaterThan(1);
      expect(joined.every((e) => e.action_name === 'joined')).toBe(true);
      const ascending = await eventsOf(`/projects/${project.id}/events?sort=asc&per_page=100`, owner.token);
      const descending = await eventsOf(`/projects/${project.id}/events?sort=desc&per_page=100`, owner.token);
      expect(ascending.map((e) => e.id)).toEqual([...descending.map((e) => e.id)].reverse());
      expect(ascending[0].action_name).toBe('created');
      expect(await eventsOf(`/projects/${project.id}/events?target_type=issue`, owner.token)).toEqual([]);
    });

    it('filters by date, both ends exclusive as GitLab’s before and after are', async () => {
      const other = await createProject(site, { visibility: 'private' }, owner.token);
      const [created] = await eventsOf(`/projects/${other.id}/events`, owner.token);
      backdate(created.id, '2020-05-10T12:00:00.000Z');
      const on = (query: string) => eventsOf(`/projects/${other.id}/events?${query}`, owner.token).then((events) => events.map((e) => e.id));
      expect(await on('after=2020-05-09')).toEqual([created.id]);
      expect(await on('after=2020-05-10')).toEqual([]);
      expect(await on('before=2020-05-11')).toEqual([created.id]);
      expect(await on('before=2020-05-10')).toEqual([]);
      expect(await on('after=2020-05-09&before=2020-05-11')).toEqual([created.id]);
      expect(await on('after=2020-05-09T23:00:00Z')).toEqual([created.id]);
    });

    it('answers 400 for filter values GitLab does not accept, before 401 and 404', async () => {
      const cases: [string, string][] = [
        ['action=opened', 'action does not have a valid value'],
        ['target_type=Issue', 'target_type does not have a valid value'],
        ['sort=up', 'sort does not have a valid value'],
        ['before=2020-13-01', 'before is invalid'],
        ['after=yesterday', 'after is invalid'],
      ];
      for (const [query, message] of cases) {
        expect(await site.api(`/events?${query}`, { as: null })).toMatchObject({ status: 400, body: { message } });
        expect(await site.api(`/users/424242/events?${query}`, { as: null })).toMatchObject({ status: 400, body: { message } });
        expect(await site.api(`/projects/${project.id}/events?${query}`, { as: stranger.token })).toMatchObject({ status: 400, body: { message } });
      }
    });

    it('pages in SQL with GitLab’s headers', async () => {
      const all = await eventsOf(`/projects/${project.id}/events?per_page=100`, owner.token);
      const response = await site.api(`/projects/${project.id}/events?per_page=2&page=2`, { as: owner.token });
      expect(response.status).toBe(200);
      expect(response.body.map((e: any) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
      expect(response.headers['x-total']).toBe(String(all.length));
      expect(response.headers['x-page']).toBe('2');
      expect(response.headers['x-per-page']).toBe('2');
      expect(response.headers['x-prev-page']).toBe('1');
      expect(response.headers.link).toContain('rel="next"');
    });

    it('never writes on a read', async () => {
      await eventsOf('/events', developer.token);
      const before = db().prepare('SELECT max(id) FROM geo_event_log').pluck().get();
      await eventsOf('/events', developer.token);
      await eventsOf(`/users/${developer.id}/events`, owner.token);
      await eventsOf(`/projects/${project.id}/events`, owner.token);
      expect(db().prepare('SELECT max(id) FROM geo_event_log').pluck().get()).toBe(before);
    });
  });

  describe('issue events', () => {
    let issue: { id: number; iid: number };
    let reporter: TestUser;
    let assignee: TestUser;

    /** An issue row as the issue service will write it; its events come through recordEvent. */
    const insertIssue = (projectId: number, authorId: number, title: string, confidential: boolean) => {
      const now = new Date().toISOString();
      const id = Number(
        db()
          .prepare('INSERT INTO issues (project_id, iid, title, author_id, confidential, created_at, updated_at) VALUES (?, (SELECT count(*) + 1 FROM issues WHERE project_id = ?), ?, ?, ?, ?, ?)')
          .run(projectId, projectId, title, authorId, confidential ? 1 : 0, now, now).lastInsertRowid,
      );
      return db().prepare('SELECT id, iid FROM issues WHERE id = ?').get(id) as { id: number; iid: number };
    };

    beforeAll(async () => {
      reporter = await createUser(site);
      assignee = await createUser(site);
      await addMember(site, 'projects', publicProject.id, reporter, 20, owner.token);
      issue = insertIssue(publicProject.id, stranger.id, 'Secret bug', true);
      db().prepare('INSERT INTO issue_assignees (issue_id, user_id) VALUES (?, ?)').run(issue.id, assignee.id);
      recordEvent(db(), stranger.id, { projectId: publicProject.id }, { action: 'created', target: { type: 'Issue', id: issue.id, iid: issue.iid, title: 'Secret bug' } });
      const now = new Date().toISOString();
      const noteId = Number(
        db()
          .prepare("INSERT INTO notes (project_id, noteable_type, noteable_id, author_id, body, discussion_id, created_at, updated_at) VALUES (?, 'Issue', ?, ?, 'Me too', 'd1', ?, ?)")
          .run(publicProject.id, issue.id, assignee.id, now, now).lastInsertRowid,
      );
      recordEvent(db(), assignee.id, { projectId: publicProject.id }, { action: 'commented', target: { type: 'Note', id: noteId, noteableTitle: 'Secret bug' } });
      recordEvent(db(), stranger.id, { projectId: publicProject.id }, { action: 'closed', target: { type: 'Issue', id: issue.id, iid: issue.iid, title: 'Secret bug' } });
      recordEvent(db(), stranger.id, { projectId: publicProject.id }, { action: 'reopened', target: { type: 'Issue', id: issue.id, iid: issue.iid, title: 'Secret bug' } });
    });

    it('names issue and comment events as GitLab does, with the comment embedded', async () => {
      const events = await eventsOf(`/projects/${publicProject.id}/events?per_page=4`, owner.token);
      expect(events.map((e) => [e.action_name, e.target_type, e.target_title])).toEqual([
        ['opened', 'Issue', 'Secret bug'],
        ['closed', 'Issue', 'Secret bug'],
        ['commented on', 'Note', 'Secret bug'],
        ['opened', 'Issue', 'Secret bug'],
      ]);
      expect(events[0]).toMatchObject({ target_id: issue.id, target_iid: issue.iid });
      const comment = events[2];
      expect(comment.target_iid).toBe(comment.target_id);
      expect(comment.note).toMatchObject({
        id: comment.target_id,
        body: 'Me too',
        type: null,
        system: false,
        noteable_id: issue.id,
        noteable_type: 'Issue',
        noteable_iid: issue.iid,
        author: { id: assignee.id, username: assignee.username },
      });
      expect(await eventsOf(`/projects/${publicProject.id}/events?target_type=note`, owner.token)).toHaveLength(1);
      expect(await eventsOf(`/projects/${publicProject.id}/events?target_type=issue&action=closed`, owner.token)).toHaveLength(1);
    });

    it('shows the title an issue has now', async () => {
      db().prepare("UPDATE issues SET title = 'Renamed bug' WHERE id = ?").run(issue.id);
      const [latest] = await eventsOf(`/projects/${publicProject.id}/events?target_type=issue`, owner.token);
      expect(latest.target_title).toBe('Renamed bug');
      db().prepare("UPDATE issues SET title = 'Secret bug' WHERE id = ?").run(issue.id);
    });

    it('shows a confidential issue’s events only to reporters, its author and its assignees', async () => {
      const issueEvents = async (as: string | null) => (await eventsOf(`/projects/${publicProject.id}/events?per_page=100`, as)).filter((e) => e.target_type !== null);
      expect(await issueEvents(owner.token)).toHaveLength(4);
      expect(await issueEvents(reporter.token)).toHaveLength(4);
      expect(await issueEvents(stranger.token)).toHaveLength(4);
      expect(await issueEvents(assignee.token)).toHaveLength(4);
      expect(await issueEvents(guest.token)).toHaveLength(0);
      expect(await issueEvents(null)).toHaveLength(0);
      expect((await eventsOf(`/users/${stranger.id}/events?target_type=issue`, developer.token)).length).toBe(0);

      db().prepare('UPDATE issues SET confidential = 0 WHERE id = ?').run(issue.id);
      expect(await issueEvents(null)).toHaveLength(4);
      db().prepare('UPDATE issues SET confidential = 1 WHERE id = ?').run(issue.id);
    });
  });

  describe('activity', () => {
    it('moves a project’s last_activity_at with its events, at most once an hour as GitLab does', async () => {
      const other = await createProject(site, { visibility: 'private' }, owner.token);
      const lastActivity = async () => (await site.api(`/projects/${other.id}`, { as: owner.token })).body.last_activity_at;
      db().prepare('UPDATE projects SET last_activity_at = ? WHERE id = ?').run('2020-01-01T00:00:00.000Z', other.id);
      await addMember(site, 'projects', other.id, developer, 30, owner.token);
      const [joined] = await eventsOf(`/projects/${other.id}/events`, owner.token);
      expect(await lastActivity()).toBe(joined.created_at);

      const recent = new Date(Date.now() - 10 * 60 * 1000).toISOString();
      db().prepare('UPDATE projects SET last_activity_at = ? WHERE id = ?').run(recent, other.id);
      await addMember(site, 'projects', other.id, guest, 10, owner.token);
      expect(await lastActivity()).toBe(recent);
    });

    it('marks the author active on the day of their own contributions', async () => {
      const user = await createUser(site);
      db().prepare('UPDATE users SET last_activity_on = NULL WHERE id = ?').run(user.id);
      // An admin creates the project for the user: the user made no request, but it is their contribution.
      const response = await site.api(`/projects/user/${user.id}`, { method: 'POST', body: { name: `for-${user.username}` } });
      expect(response.status).toBe(201);
      const [created] = await eventsOf(`/projects/${response.body.id}/events`);
      expect(created).toMatchObject({ action_name: 'created', author_id: user.id });
      const row = db().prepare('SELECT last_activity_on FROM users WHERE id = ?').get(user.id) as { last_activity_on: string };
      expect(row.last_activity_on).toBe(new Date().toISOString().slice(0, 10));

      // Being added to a project is not the member's own doing.
      const member = await createUser(site);
      db().prepare('UPDATE users SET last_activity_on = NULL WHERE id = ?').run(member.id);
      await addMember(site, 'projects', response.body.id, member, 30);
      expect(db().prepare('SELECT last_activity_on FROM users WHERE id = ?').pluck().get(member.id)).toBeNull();
    });
  });

  describe('deletions', () => {
    it('records a destroyed project for its deleter alone, and drops the project’s own events', async () => {
      const doomed = await createProject(site, { visibility: 'public' }, developer.token);
      expect((await eventsOf(`/projects/${doomed.id}/events`, null)).length).toBe(1);
      expect((await site.api(`/projects/${doomed.id}`, { method: 'DELETE', as: developer.token })).status).toBe(202);
      const [destroyed] = await eventsOf('/events?target_type=project', developer.token);
      expect(destroyed).toMatchObject({
        project_id: null,
        action_name: 'destroyed',
        target_type: 'Project',
        target_id: doomed.id,
        target_title: doomed.path_with_namespace,
        author_id: developer.id,
      });
      expect((await eventsOf(`/users/${developer.id}/events?action=destroyed`)).map((e) => e.id)).toEqual([destroyed.id]);
      expect(await eventsOf(`/users/${developer.id}/events?action=destroyed`, owner.token)).toEqual([]);
      expect(db().prepare('SELECT count(*) FROM events WHERE project_id = ?').pluck().get(doomed.id)).toBe(0);
    });

    it('moves a deleted user’s events to the ghost user, or deletes them with hard_delete', async () => {
      const leaving = await createUser(site);
      const kept = await createProject(site, { visibility: 'public' }, owner.token);
      await addMember(site, 'projects', kept.id, leaving, 30, owner.token);
      expect((await site.api(`/users/${leaving.id}`, { method: 'DELETE' })).status).toBe(204);
      const [joined] = await eventsOf(`/projects/${kept.id}/events`, null);
      expect(joined).toMatchObject({ action_name: 'joined', author_username: 'ghost', author: { username: 'ghost', name: 'Ghost User', state: 'blocked' } });
      expect(await site.api(`/users/${joined.author_id}/events`)).toMatchObject({ status: 404 });

      const gone = await createUser(site);
      await addMember(site, 'projects', kept.id, gone, 30, owner.token);
      expect((await site.api(`/users/${gone.id}?hard_delete=true`, { method: 'DELETE' })).status).toBe(204);
      const events = await eventsOf(`/projects/${kept.id}/events`, null);
      expect(events.map((e) => e.author_username)).toEqual(['ghost', owner.username]);

      const third = await createUser(site);
      await addMember(site, 'projects', kept.id, third, 30, owner.token);
      expect((await site.api(`/users/${third.id}`, { method: 'DELETE' })).status).toBe(204);
      const ghosts = db().prepare('SELECT count(*) FROM users WHERE ghost = 1').pluck().get();
      expect(ghosts).toBe(1);
    });
  });
});

describe('issue events (recorded through the issue-change seam)', () => {
  let site: TestSite;
  let owner: TestUser;
  let reporter: TestUser;
  let guest: TestUser;
  let project: any;
  let target: any;
  beforeAll(async () => {
    site = await startSite();
    [owner, reporter, guest] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    target = await createProject(site, { visibility: 'private' }, owner.token);
    await addMembers(site, 'projects', project.id, [[reporter, 20], [guest, 10]]);
  });
  afterAll(() => site.stop());

  const issueEvents = async (projectId: number, as = owner.token) => {
    const response = await site.api(`/projects/${projectId}/events?target_type=issue&sort=asc`, { as });
    expect(response.status, response.text).toBe(200);
    return (response.body as any[]).map((event) => [event.action_name, event.target_iid, event.target_title, event.author.username]);
  };

  it('records opened, closed and reopened with the issue as target (edits record none), and a delete takes them away', async () => {
    const created = await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: reporter.token, body: { title: 'Broken' } });
    expect(created.status).toBe(201);
    const { iid } = created.body;
    const put = (body: object, as = owner.token) => site.api(`/projects/${project.id}/issues/${iid}`, { method: 'PUT', as, body });
    expect((await put({ title: 'Broken badly' })).status).toBe(200);
    expect((await put({ state_event: 'close' })).status).toBe(200);
    expect((await put({ state_event: 'reopen' }, reporter.token)).status).toBe(200);
    expect(await issueEvents(project.id)).toEqual([
      // The title is the issue's current one, as GitLab's entity reads it from the target.
      ['opened', iid, 'Broken badly', reporter.username],
      ['closed', iid, 'Broken badly', owner.username],
      // GitLab shows a reopened issue's event as "opened".
      ['opened', iid, 'Broken badly', reporter.username],
    ]);
    const [event] = (await site.api(`/projects/${project.id}/events?target_type=issue`, { as: owner.token })).body;
    expect(event).toMatchObject({ target_type: 'Issue', target_id: created.body.id, project_id: project.id });
    expect((await site.api(`/projects/${project.id}/issues/${iid}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect(await issueEvents(project.id)).toEqual([]);
  });

  it('a move records the issue opened in the target project and closed in the source', async () => {
    const created = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Moving' } })).body;
    const moved = await site.api(`/projects/${project.id}/issues/${created.iid}/move`, { method: 'POST', as: owner.token, body: { to_project_id: target.id } });
    expect(moved.status, moved.text).toBe(201);
    expect((await issueEvents(project.id)).at(-1)).toEqual(['closed', created.iid, 'Moving', owner.username]);
    expect(await issueEvents(target.id)).toEqual([['opened', moved.body.iid, 'Moving', owner.username]]);
  });

  it('a confidential issue’s events are seen by those who may read it only', async () => {
    const secret = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', as: owner.token, body: { title: 'Secret', confidential: true } })).body;
    expect((await issueEvents(project.id, reporter.token)).some(([, iid]) => iid === secret.iid)).toBe(true);
    expect((await issueEvents(project.id, guest.token)).some(([, iid]) => iid === secret.iid)).toBe(false);
  });
});
