import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { addMembers, createProject, createUsers, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl, startHookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Comments and discussions on a commit (issue 17, item 1): GitLab's CommitNote on
 * commits/:sha/comments, with line comments on the commit's diff, and the discussions API on
 * commits/:sha/discussions.
 */
describe('commit comments and discussions', () => {
  let site: TestSite;
  let scratch: string;
  let work: string;
  let owner: TestUser, developer: TestUser, reporter: TestUser, guest: TestUser, stranger: TestUser;
  let project: any;
  let first: string;
  let second: string;
  const commits = (suffix: string) => `/projects/${project.id}/repository/commits${suffix}`;
  const git = (args: string[]) => gitClient(scratch, 20_000)(args, work);

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-commit-notes-'));
    work = path.join(scratch, 'work');
    [owner, developer, reporter, guest, stranger] = await createUsers(site, 5);
    project = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
    await addMembers(site, 'projects', project.id, [[developer, 30], [reporter, 20], [guest, 10]], owner.token);
    await runGit(['init', '--quiet', '-b', 'main', work]);
    await writeFile(path.join(work, 'a.txt'), 'one\ntwo\nthree\n');
    await git(['add', '.']);
    await git(['commit', '--quiet', '-m', 'first']);
    first = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    await writeFile(path.join(work, 'a.txt'), 'one\n2\nthree\nfour\n');
    await git(['add', '.']);
    await git(['commit', '--quiet', '-m', 'second']);
    second = (await git(['rev-parse', 'HEAD'])).stdout.trim();
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'main']);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('comments on a commit and lists its comments oldest first (GitLab CommitNote)', async () => {
    expect((await site.api(commits(`/${second}/comments`), { as: reporter.token })).body).toEqual([]);
    const plain = await site.api(commits(`/${second}/comments`), { method: 'POST', as: reporter.token, body: { note: 'Looks good' } });
    expect(plain.status).toBe(201);
    expect(plain.body).toEqual({
      note: 'Looks good',
      path: null,
      line: null,
      line_type: null,
      author: expect.objectContaining({ id: reporter.id, username: reporter.username }),
      created_at: expect.stringMatching(/Z$/),
    });
    const added = await site.api(commits('/main/comments'), { method: 'POST', as: developer.token, body: { note: 'a new line', path: 'a.txt', line: 4, line_type: 'new' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ note: 'a new line', path: 'a.txt', line: 4, line_type: 'new' });
    // A removed line is named by the new file's counter at that point, and shown at its old number (GitLab's diff_line).
    const removed = await site.api(commits(`/${second}/comments`), { method: 'POST', as: developer.token, body: { note: 'why?', path: 'a.txt', line: 2, line_type: 'old' } });
    expect(removed.body).toMatchObject({ path: 'a.txt', line: 2, line_type: 'old' });
    const context = await site.api(commits(`/${second}/comments`), { method: 'POST', as: developer.token, body: { note: 'on a context line', path: 'a.txt', line: 1 } });
    expect(context.body).toMatchObject({ path: null, line: null, line_type: null });

    const list = await site.api(commits(`/${second}/comments?per_page=2`), { as: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body.map((n: any) => n.note)).toEqual(['Looks good', 'a new line']);
    expect(list.headers['x-total']).toBe('4');
    expect((await site.api(commits(`/${first}/comments`), { as: reporter.token })).body).toEqual([]);
  });

  it('answers comments with GitLab error rows: 400, 401, 403, 404', async () => {
    const post = (body: unknown, as: string | null = reporter.token, sha = second) => site.api(commits(`/${sha}/comments`), { method: 'POST', as, body });
    expect((await post({})).body).toEqual({ message: 'note is missing' });
    expect((await post({ note: 'x', path: 'a.txt' })).body).toEqual({ message: 'line is missing' });
    expect((await post({ note: 'x', path: 'a.txt', line: 2, line_type: 'both' })).body).toEqual({ message: 'line_type does not have a valid value' });
    expect((await post({ note: 'x', path: 'a.txt', line: 'two' })).body).toEqual({ message: 'line is invalid' });
    const blank = await post({ note: '  ' });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ message: 'Failed to save note {:note=>["can\'t be blank"]}' });
    expect((await post({ note: 'x' }, null)).status).toBe(401);
    expect((await post({ note: 'x' }, guest.token)).status).toBe(403);
    expect((await site.api(commits(`/${second}/comments`), { as: guest.token })).status).toBe(403);
    expect((await post({ note: 'x' }, stranger.token)).status).toBe(404);
    expect((await site.api(commits(`/${second}/comments`), { as: null })).status).toBe(404);
    const unknown = await post({ note: 'x' }, reporter.token, 'nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('404 Commit Not Found');
  });

  it('records the comment as a commented event on the project', async () => {
    const events = await site.api(`/projects/${project.id}/events?action=commented`, { as: reporter.token });
    expect(events.status).toBe(200);
    expect(events.body[0]).toMatchObject({ action_name: 'commented on', note: { noteable_type: 'Commit', body: 'on a context line' } });
  });

  it('starts discussions on a commit, replies, edits and deletes notes', async () => {
    const started = await site.api(commits(`/${first}/discussions`), { method: 'POST', as: reporter.token, body: { body: 'A thread on the first commit' } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ individual_note: false, notes: [{ body: 'A thread on the first commit', type: 'DiscussionNote', noteable_type: 'Commit', noteable_id: null, author: { id: reporter.id } }] });
    const id = started.body.id;
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    const replied = await site.api(commits(`/${first}/discussions/${id}/notes`), { method: 'POST', as: developer.token, body: { body: 'An answer' } });
    expect(replied.status).toBe(201);
    expect(replied.body).toMatchObject({ body: 'An answer', type: 'DiscussionNote' });
    const shown = await site.api(commits(`/${first}/discussions/${id}`), { as: owner.token });
    expect(shown.body.notes.map((n: any) => n.body)).toEqual(['A thread on the first commit', 'An answer']);
    const notes = await site.api(commits(`/${first}/discussions/${id}/notes`), { as: reporter.token });
    expect(notes.body.map((n: any) => n.id)).toEqual([started.body.notes[0].id, replied.body.id]);

    // The comments posted above are discussions too: a plain comment is an individual note until answered, a line comment a thread.
    const onSecond = await site.api(commits(`/${second}/discussions`), { as: reporter.token });
    expect(onSecond.status).toBe(200);
    expect(onSecond.body.map((d: any) => d.individual_note)).toEqual([true, false, false, true]);
    expect(onSecond.body[1].notes[0]).toMatchObject({ type: 'DiffNote', position: { new_path: 'a.txt', new_line: 4, old_line: null, head_sha: second, base_sha: first } });
    const plain = onSecond.body[0];
    await site.api(commits(`/${second}/discussions/${plain.id}/notes`), { method: 'POST', as: owner.token, body: { body: 'agreed' } });
    const answered = await site.api(commits(`/${second}/discussions/${plain.id}`), { as: reporter.token });
    expect(answered.body).toMatchObject({ individual_note: false, notes: [{ type: 'DiscussionNote' }, { body: 'agreed' }] });

    const noteUrl = commits(`/${first}/discussions/${id}/notes/${replied.body.id}`);
    expect((await site.api(noteUrl, { as: reporter.token })).body.body).toBe('An answer');
    expect((await site.api(noteUrl, { method: 'PUT', as: reporter.token, body: { body: 'not mine' } })).status).toBe(403);
    const edited = await site.api(noteUrl, { method: 'PUT', as: developer.token, body: { body: 'An edited answer' } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('An edited answer');
    expect((await site.api(noteUrl, { method: 'PUT', as: developer.token, body: { resolved: true } })).status).toBe(400);
    expect((await site.api(noteUrl, { method: 'PUT', as: developer.token, body: {} })).body.message).toBe('body, resolved are missing, exactly one parameter must be provided');
    expect((await site.api(noteUrl, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(noteUrl, { as: reporter.token })).status).toBe(404);
  });

  it('fires the project’s note hooks with GitLab’s Note Hook payload for a commit', async () => {
    const receiver = await startHookReceiver();
    try {
      const hook = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, note_events: true, push_events: false } });
      expect(hook.status).toBe(201);
      const made = await site.api(commits(`/${second}/comments`), { method: 'POST', as: developer.token, body: { note: 'hooked' } });
      expect(made.status).toBe(201);
      await waitFor(() => receiver.received.length > 0, { timeoutMs: 10_000 });
      const [{ headers, body }] = receiver.received;
      expect(headers['x-gitlab-event']).toBe('Note Hook');
      expect(body).toMatchObject({
        object_kind: 'note',
        event_type: 'note',
        user: { username: developer.username },
        project_id: project.id,
        object_attributes: { note: 'hooked', noteable_type: 'Commit', commit_id: second, noteable_id: null, system: false, url: `${project.web_url}/commit/${second}#note_${body.object_attributes.id}` },
        commit: { id: second, message: 'second\n', url: `${project.web_url}/commit/${second}`, author: { name: 'Test', email: 'test@example.com' } },
      });
    } finally {
      receiver.close();
    }
  });

  it('answers discussions with their error rows: 401 first, 400, 404, 403', async () => {
    const url = commits(`/${first}/discussions`);
    expect((await site.api(url, { as: null })).status).toBe(401);
    expect((await site.api(url, { method: 'POST', as: null, body: { body: 'x' } })).status).toBe(401);
    expect((await site.api(url, { method: 'POST', as: reporter.token, body: {} })).body.message).toBe('body is missing');
    expect((await site.api(url, { method: 'POST', as: reporter.token, body: { body: ' ' } })).status).toBe(400);
    expect((await site.api(url, { as: stranger.token })).status).toBe(404);
    expect((await site.api(url, { as: guest.token })).status).toBe(403);
    expect((await site.api(commits('/nope/discussions'), { as: reporter.token })).body.message).toBe('404 Commit Not Found');
    const missing = await site.api(commits(`/${first}/discussions/${'0'.repeat(40)}`), { as: reporter.token });
    expect(missing.body.message).toBe('404 Discussion Not Found');
    expect((await site.api(commits(`/${first}/discussions/${'0'.repeat(40)}/notes`), { method: 'POST', as: reporter.token, body: { body: 'x' } })).status).toBe(404);
    // A note of another commit is not this commit's.
    const other = (await site.api(commits(`/${second}/discussions`), { as: reporter.token })).body[0];
    expect((await site.api(commits(`/${first}/discussions/${other.id}/notes/${other.notes[0].id}`), { as: reporter.token })).body.message).toBe('404 Not found');
    expect((await site.api(commits(`/${first}/discussions/x/notes/abc`), { as: reporter.token })).body.message).toBe('note_id is invalid');
  });
});
