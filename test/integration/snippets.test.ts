import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMembers, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient } from '../helpers/git.js';
import { eventLogHead, startSite, type TestSite } from '../helpers/site.js';

const SNIPPET_SHAPE = {
  id: expect.any(Number),
  title: expect.any(String),
  description: expect.toBeOneOf([null, expect.any(String)]),
  visibility: expect.stringMatching(/^(private|internal|public)$/),
  author: { id: expect.any(Number), username: expect.any(String), name: expect.any(String), state: 'active', avatar_url: null, web_url: expect.any(String) },
  created_at: expect.stringMatching(/Z$/),
  updated_at: expect.stringMatching(/Z$/),
  web_url: expect.any(String),
  raw_url: expect.any(String),
  ssh_url_to_repo: expect.any(String),
  http_url_to_repo: expect.any(String),
  file_name: expect.any(String),
  files: expect.any(Array),
  imported: false,
  imported_from: 'none',
};

describe('snippets API', () => {
  let site: TestSite;
  let scratch: string;
  let author: TestUser;
  let other: TestUser;
  let external: TestUser;
  let maintainer: TestUser;
  let reporter: TestUser;
  let guest: TestUser;
  let project: any;
  let publicProject: any;

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-snippets-'));
    author = await createUser(site, { name: 'Snip Author' });
    other = await createUser(site);
    external = await createUser(site, { external: true });
    maintainer = await createUser(site);
    reporter = await createUser(site);
    guest = await createUser(site);
    project = await createProject(site, { visibility: 'private' }, maintainer.token);
    publicProject = await createProject(site, { visibility: 'public' }, maintainer.token);
    await addMembers(site, 'projects', project.id, [[reporter, 20], [guest, 10]], maintainer.token);
    await addMembers(site, 'projects', publicProject.id, [[reporter, 20]], maintainer.token);
  });

  afterAll(async () => {
    await site?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  describe('personal snippets', () => {
    let snippet: any;

    it('creates one from files[] as a commit, with the GitLab 17 entity', async () => {
      const created = await site.api('/snippets', {
        method: 'POST',
        as: author.token,
        body: { title: 'Two files', description: 'd', visibility: 'private', files: [{ file_path: 'b.rb', content: 'puts 1\n' }, { file_path: 'a.txt', content: 'hello\n' }] },
      });
      expect(created.status).toBe(201);
      snippet = created.body;
      expect(snippet).toMatchObject(SNIPPET_SHAPE);
      expect(snippet).toMatchObject({ title: 'Two files', description: 'd', visibility: 'private', project_id: null, file_name: 'a.txt', author: { id: author.id } });
      expect(snippet.web_url).toBe(`${site.url}/-/snippets/${snippet.id}`);
      expect(snippet.raw_url).toBe(`${site.url}/-/snippets/${snippet.id}/raw`);
      expect(snippet.http_url_to_repo).toBe(`${site.url}/snippets/${snippet.id}.git`);
      expect(snippet.files).toEqual([
        { path: 'a.txt', raw_url: `${site.url}/-/snippets/${snippet.id}/raw/main/a.txt` },
        { path: 'b.rb', raw_url: `${site.url}/-/snippets/${snippet.id}/raw/main/b.rb` },
      ]);
    });

    it('creates one from the legacy file_name and content, internal by default', async () => {
      const created = await site.api('/snippets', { method: 'POST', as: author.token, body: { title: 'Legacy', file_name: 'one.md', content: '# one' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ visibility: 'internal', file_name: 'one.md', files: [{ path: 'one.md' }] });
      const raw = await site.api(`/snippets/${created.body.id}/raw`, { as: other.token });
      expect(raw.status).toBe(200);
      expect(raw.text).toBe('# one');
      expect(raw.headers['content-type']).toMatch(/^text\/plain/);
    });

    it('answers the create error rows: 401, 400, 403 for external users, 422 for malformed files', async () => {
      expect((await site.api('/snippets', { method: 'POST', as: null, body: { title: 't', file_name: 'a', content: 'c' } })).status).toBe(401);
      const cases: [Record<string, unknown>, string][] = [
        [{ file_name: 'a', content: 'c' }, 'title is missing'],
        [{ title: 't' }, 'files, content are missing, exactly one parameter must be provided'],
        [{ title: 't', content: 'c' }, 'file_name is missing'],
        [{ title: 't', content: 'c', file_name: 'a', files: [{ file_path: 'x', content: 'y' }] }, 'files, content are mutually exclusive'],
        [{ title: 't', files: [{ file_path: 'x' }] }, 'files[0][content] is missing'],
        [{ title: 't', files: 'nope' }, 'files is invalid'],
        [{ title: 't', visibility: 'secret', file_name: 'a', content: 'c' }, 'visibility does not have a valid value'],
      ];
      for (const [body, message] of cases) {
        const response = await site.api('/snippets', { method: 'POST', as: author.token, body });
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body).toEqual({ message });
      }
      expect((await site.api('/snippets', { method: 'POST', as: external.token, body: { title: 't', file_name: 'a', content: 'c' } })).status).toBe(403);
      const badPath = await site.api('/snippets', { method: 'POST', as: author.token, body: { title: 't', files: [{ file_path: '../x', content: 'y' }] } });
      expect(badPath.status).toBe(422);
      expect(badPath.body).toEqual({ message: 'Snippet actions have invalid data' });
    });

    it('reads a private snippet only as its author or an admin (404 to others, 404 for a bad id as 400)', async () => {
      expect((await site.api(`/snippets/${snippet.id}`, { as: author.token })).status).toBe(200);
      expect((await site.api(`/snippets/${snippet.id}`)).status).toBe(200);
      const hidden = await site.api(`/snippets/${snippet.id}`, { as: other.token });
      expect(hidden.status).toBe(404);
      expect(hidden.body).toEqual({ message: '404 Snippet Not Found' });
      expect((await site.api(`/snippets/${snippet.id}`, { as: null })).status).toBe(404);
      expect((await site.api('/snippets/abc', { as: author.token })).status).toBe(400);
      expect((await site.api('/snippets/999999', { as: author.token })).status).toBe(404);
    });

    it('serves each file at a ref, 404 Reference and File otherwise', async () => {
      const file = await site.api(`/snippets/${snippet.id}/files/main/b.rb/raw`, { as: author.token });
      expect(file.status).toBe(200);
      expect(file.text).toBe('puts 1\n');
      expect((await site.api(`/snippets/${snippet.id}/files/nope/b.rb/raw`, { as: author.token })).body).toEqual({ message: '404 Reference Not Found' });
      expect((await site.api(`/snippets/${snippet.id}/files/main/zzz/raw`, { as: author.token })).body).toEqual({ message: '404 File Not Found' });
      expect((await site.api(`/snippets/${snippet.id}/raw`, { as: author.token })).text).toBe('hello\n');
    });

    it('updates fields and files through actions, refusing legacy parameters on a snippet of several files', async () => {
      const updated = await site.api(`/snippets/${snippet.id}`, {
        method: 'PUT',
        as: author.token,
        body: {
          title: 'Renamed',
          visibility: 'public',
          files: [
            { action: 'update', file_path: 'a.txt', content: 'changed\n' },
            { action: 'move', previous_path: 'b.rb', file_path: 'lib/c.rb' },
            { action: 'create', file_path: 'new.txt', content: 'new\n' },
          ],
        },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ title: 'Renamed', visibility: 'public', file_name: 'a.txt' });
      expect(updated.body.files.map((file: { path: string }) => file.path)).toEqual(['a.txt', 'lib/c.rb', 'new.txt']);
      expect((await site.api(`/snippets/${snippet.id}/files/main/lib%2Fc.rb/raw`, { as: other.token })).text).toBe('puts 1\n');

      const legacy = await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: author.token, body: { content: 'x' } });
      expect(legacy.status).toBe(400);
      expect(legacy.body).toEqual({ message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } });
      const missing = await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: author.token, body: { files: [{ action: 'delete', file_path: 'gone.txt' }] } });
      expect(missing.status).toBe(400);
      expect(missing.body.message.error).toMatch(/^Error updating the snippet - /);
      const exists = await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: author.token, body: { files: [{ action: 'create', file_path: 'new.txt', content: 'x' }] } });
      expect(exists.status).toBe(400);
      const badAction = await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: author.token, body: { files: [{ action: 'explode', file_path: 'a' }] } });
      expect(badAction.status).toBe(400);
      expect(badAction.body).toEqual({ message: 'files[0][action] does not have a valid value' });
      const none = await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: author.token, body: {} });
      expect(none.body).toEqual({ message: 'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided' });
      expect((await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: author.token, body: { files: [{ action: 'update', file_path: 'a.txt' }] } })).status).toBe(422);
    });

    it('lets only its author update or delete it (404 to others, admins included, as GitLab finds the caller\'s own)', async () => {
      expect((await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: other.token, body: { title: 'x' } })).status).toBe(404);
      expect((await site.api(`/snippets/${snippet.id}`, { method: 'PUT', as: null, body: { title: 'x' } })).status).toBe(401);
      expect((await site.api(`/snippets/${snippet.id}`, { method: 'DELETE', as: other.token })).status).toBe(404);
    });

    it('lists the caller\'s own, the public personal ones and all visible ones, paged', async () => {
      const own = await site.api('/snippets?per_page=1', { as: author.token });
      expect(own.status).toBe(200);
      expect(own.body).toHaveLength(1);
      expect(own.headers['x-total']).toBe('2');
      expect(own.headers['x-next-page']).toBe('2');
      const publicOnes = await site.api('/snippets/public', { as: other.token });
      expect(publicOnes.body.map((s: { id: number }) => s.id)).toEqual([snippet.id]);
      const all = await site.api('/snippets/all', { as: other.token });
      expect(all.body.every((s: { visibility: string }) => s.visibility !== 'private')).toBe(true);
      expect((await site.api('/snippets', { as: null })).status).toBe(401);
      expect((await site.api('/snippets/all?created_after=yesterday', { as: other.token })).status).toBe(400);
      const later = await site.api(`/snippets/all?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { as: author.token });
      expect(later.body).toEqual([]);
    });

    it('shows admins the user agent detail of a create (401, 403 otherwise)', async () => {
      const detail = await site.api(`/snippets/${snippet.id}/user_agent_detail`);
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual({ user_agent: expect.any(String), ip_address: expect.any(String), akismet_submitted: false });
      expect((await site.api(`/snippets/${snippet.id}/user_agent_detail`, { as: author.token })).status).toBe(403);
      expect((await site.api(`/snippets/${snippet.id}/user_agent_detail`, { as: null })).status).toBe(401);
    });

    it('clones and pushes the snippet repository over smart HTTP; a push moves what the API shows', async () => {
      const git = gitClient(scratch, 20_000);
      const url = (user: TestUser | null) => `${site.url.replace('://', user ? `://${user.username}:${user.token}@` : '://')}/snippets/${snippet.id}.git`;
      const work = path.join(scratch, 'personal');
      await git(['clone', '--quiet', url(null), work]);
      expect(await readFile(path.join(work, 'a.txt'), 'utf8')).toBe('changed\n');
      await writeFile(path.join(work, 'pushed.txt'), 'from git\n');
      await git(['add', 'pushed.txt'], work);
      await git(['commit', '--quiet', '-m', 'push'], work);
      const anonymous = await git(['push', '--quiet', 'origin', 'HEAD:main'], work).then(() => null, (error: Error) => error);
      expect(String(anonymous)).toMatch(/Authentication failed|401|could not read Username/);
      const denied = await git(['push', '--quiet', url(other), 'HEAD:main'], work).then(() => null, (error: Error) => error);
      expect(String(denied)).toMatch(/not allowed to update this snippet|403/);
      const before = eventLogHead(site);
      await git(['push', '--quiet', url(author), 'HEAD:main'], work);
      const shown = await site.api(`/snippets/${snippet.id}`, { as: author.token });
      expect(shown.body.files.map((file: { path: string }) => file.path)).toContain('pushed.txt');
      expect((await site.api(`/snippets/${snippet.id}/files/main/pushed.txt/raw`, { as: author.token })).text).toBe('from git\n');
      expect(eventLogHead(site)).toBeGreaterThan(before);
    });

    it('deletes it with its repository (204, then 404)', async () => {
      const doomed = await site.api('/snippets', { method: 'POST', as: author.token, body: { title: 'doomed', file_name: 'd', content: 'd' } });
      expect((await site.api(`/snippets/${doomed.body.id}`, { method: 'DELETE', as: author.token })).status).toBe(204);
      expect((await site.api(`/snippets/${doomed.body.id}`, { as: author.token })).status).toBe(404);
      const git = gitClient(scratch, 20_000);
      const gone = await git(['ls-remote', `${site.url.replace('://', `://${author.username}:${author.token}@`)}/snippets/${doomed.body.id}.git`]).then(() => null, (error: Error) => error);
      expect(gone).not.toBeNull();
    });
  });

  describe('project snippets', () => {
    let snippet: any;
    const base = () => `/projects/${project.id}/snippets`;

    it('creates one as a reporter (visibility required), 403 for guests, 404 for strangers', async () => {
      const created = await site.api(base(), { method: 'POST', as: reporter.token, body: { title: 'P', visibility: 'private', files: [{ file_path: 'p.txt', content: 'p\n' }] } });
      expect(created.status).toBe(201);
      snippet = created.body;
      expect(snippet).toMatchObject({ ...SNIPPET_SHAPE, project_id: project.id, file_name: 'p.txt' });
      expect(snippet.web_url).toBe(`${site.url}/${project.path_with_namespace}/-/snippets/${snippet.id}`);
      expect(snippet.http_url_to_repo).toBe(`${site.url}/${project.path_with_namespace}/snippets/${snippet.id}.git`);
      const missing = await site.api(base(), { method: 'POST', as: reporter.token, body: { title: 'P', files: [{ file_path: 'p.txt', content: 'p' }] } });
      expect(missing.body).toEqual({ message: 'visibility is missing' });
      expect((await site.api(base(), { method: 'POST', as: guest.token, body: { title: 'P', visibility: 'private', file_name: 'a', content: 'b' } })).status).toBe(403);
      expect((await site.api(base(), { method: 'POST', as: other.token, body: { title: 'P', visibility: 'private', file_name: 'a', content: 'b' } })).status).toBe(404);
      expect((await site.api(base(), { method: 'POST', as: null, body: { title: 'P', visibility: 'private', file_name: 'a', content: 'b' } })).status).toBe(401);
    });

    it('reads a private one as any member, 404 to others; lists them', async () => {
      expect((await site.api(`${base()}/${snippet.id}`, { as: guest.token })).status).toBe(200);
      expect((await site.api(`${base()}/${snippet.id}/raw`, { as: guest.token })).text).toBe('p\n');
      expect((await site.api(`${base()}/${snippet.id}`, { as: other.token })).status).toBe(404);
      expect((await site.api(`/snippets/${snippet.id}`, { as: guest.token })).body).toMatchObject({ id: snippet.id, project_id: project.id });
      expect((await site.api(`/snippets/${snippet.id}`, { as: other.token })).status).toBe(404);
      const list = await site.api(base(), { as: guest.token });
      expect(list.body.map((s: { id: number }) => s.id)).toEqual([snippet.id]);
      // Another project's snippet id under this project is no snippet of it.
      const elsewhere = await site.api(`/projects/${publicProject.id}/snippets`, { method: 'POST', as: reporter.token, body: { title: 'E', visibility: 'public', file_name: 'e', content: 'e' } });
      expect((await site.api(`${base()}/${elsewhere.body.id}`, { as: guest.token })).status).toBe(404);
      expect((await site.api(`/projects/${publicProject.id}/snippets/${elsewhere.body.id}`, { as: null })).status).toBe(200);
    });

    it('lets its author (a reporter) and maintainers edit it, 403 to other members', async () => {
      expect((await site.api(`${base()}/${snippet.id}`, { method: 'PUT', as: reporter.token, body: { file_name: 'renamed.txt', content: 'q\n' } })).body).toMatchObject({ file_name: 'renamed.txt' });
      expect((await site.api(`${base()}/${snippet.id}`, { method: 'PUT', as: maintainer.token, body: { description: 'by maintainer' } })).status).toBe(200);
      expect((await site.api(`${base()}/${snippet.id}`, { method: 'PUT', as: guest.token, body: { description: 'x' } })).status).toBe(403);
      expect((await site.api(`${base()}/${snippet.id}`, { method: 'DELETE', as: guest.token })).status).toBe(403);
      expect((await site.api(`${base()}/${snippet.id}/files/main/renamed.txt/raw`, { as: guest.token })).text).toBe('q\n');
    });

    it('answers 403 to every route while the project has snippets switched off', async () => {
      await site.api(`/projects/${project.id}`, { method: 'PUT', as: maintainer.token, body: { snippets_enabled: false } });
      expect((await site.api(base(), { as: guest.token })).status).toBe(403);
      expect((await site.api(`${base()}/${snippet.id}`, { as: guest.token })).status).toBe(403);
      expect((await site.api(`/snippets/${snippet.id}`, { as: guest.token })).status).toBe(404);
      await site.api(`/projects/${project.id}`, { method: 'PUT', as: maintainer.token, body: { snippets_enabled: true } });
    });

    it('clones with members\' credentials, pushes as the author; 401 for anonymous pulls of a private project', async () => {
      const git = gitClient(scratch, 20_000);
      const url = (user: TestUser | null) => `${site.url.replace('://', user ? `://${user.username}:${user.token}@` : '://')}/${project.path_with_namespace}/snippets/${snippet.id}.git`;
      const work = path.join(scratch, 'project-snippet');
      const anonymous = await git(['ls-remote', url(null)]).then(() => null, (error: Error) => error);
      expect(String(anonymous)).toMatch(/Authentication failed|401|could not read Username/);
      await git(['clone', '--quiet', url(guest), work]);
      expect(await readFile(path.join(work, 'renamed.txt'), 'utf8')).toBe('q\n');
      await writeFile(path.join(work, 'renamed.txt'), 'pushed\n');
      await git(['commit', '--quiet', '-am', 'edit'], work);
      await git(['push', '--quiet', url(reporter), 'HEAD:main'], work);
      expect((await site.api(`${base()}/${snippet.id}/raw`, { as: guest.token })).text).toBe('pushed\n');
    });

    it('takes notes, discussions and award emoji (noteable type Snippet), 404 to strangers', async () => {
      const notes = `${base()}/${snippet.id}/notes`;
      const note = await site.api(notes, { method: 'POST', as: guest.token, body: { body: 'nice snippet' } });
      expect(note.status).toBe(201);
      expect(note.body).toMatchObject({ body: 'nice snippet', noteable_type: 'Snippet', noteable_id: snippet.id, noteable_iid: null, author: { id: guest.id } });
      expect((await site.api(notes, { as: reporter.token })).body.map((n: { id: number }) => n.id)).toEqual([note.body.id]);
      expect((await site.api(notes, { as: other.token })).status).toBe(404);
      expect((await site.api(notes, { method: 'POST', as: guest.token, body: {} })).status).toBe(400);
      expect((await site.api(`${notes}/${note.body.id}`, { method: 'PUT', as: reporter.token, body: { body: 'x' } })).status).toBe(403);
      const thread = await site.api(`${base()}/${snippet.id}/discussions`, { method: 'POST', as: reporter.token, body: { body: 'thread' } });
      expect(thread.status).toBe(201);
      const reply = await site.api(`${base()}/${snippet.id}/discussions/${thread.body.id}/notes`, { method: 'POST', as: guest.token, body: { body: 'reply' } });
      expect(reply.status).toBe(201);
      expect((await site.api(`${base()}/${snippet.id}/discussions`, { as: guest.token })).body).toHaveLength(2);
      const award = await site.api(`${base()}/${snippet.id}/award_emoji`, { method: 'POST', as: guest.token, body: { name: 'thumbsup' } });
      expect(award.status).toBe(201);
      expect(award.body).toMatchObject({ name: 'thumbsup', awardable_type: 'Snippet', awardable_id: snippet.id });
      expect((await site.api(`${base()}/${snippet.id}/award_emoji`, { method: 'POST', as: guest.token, body: { name: 'thumbsup' } })).status).toBe(404);
      expect((await site.api(`${notes}/${note.body.id}/award_emoji`, { method: 'POST', as: reporter.token, body: { name: 'tada' } })).status).toBe(201);
    });

    it('goes with its project: the project delete removes its snippets', async () => {
      const doomedProject = await createProject(site, { visibility: 'private' }, maintainer.token);
      const doomed = await site.api(`/projects/${doomedProject.id}/snippets`, { method: 'POST', as: maintainer.token, body: { title: 'D', visibility: 'private', file_name: 'd', content: 'd' } });
      expect(doomed.status).toBe(201);
      expect((await site.api(`/projects/${doomedProject.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(202);
      expect((await site.api(`/snippets/${doomed.body.id}`)).status).toBe(404);
    });

    it('deletes it (204) as a maintainer; a stale If-Unmodified-Since is 412 and deletes nothing', async () => {
      const stale = await site.api(`${base()}/${snippet.id}`, { method: 'DELETE', as: maintainer.token, headers: { 'if-unmodified-since': new Date(Date.now() - 3_600_000).toUTCString() } });
      expect(stale.status).toBe(412);
      expect((await site.api(`${base()}/${snippet.id}`, { as: maintainer.token })).status).toBe(200);
      expect((await site.api(`${base()}/${snippet.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
      expect((await site.api(`${base()}/${snippet.id}`, { as: maintainer.token })).status).toBe(404);
    });
  });
});
