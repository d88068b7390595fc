import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileGroupWikis } from '../../src/geo/group-wiki-events.js';
import { runGit } from '../../src/git/cli.js';
import { groupWikiRepositoryPath } from '../../src/storage/layout.js';
import { addMembers, createGroup, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { gitClient } from '../helpers/git.js';
import { eventLogHead, startSite, type TestSite } from '../helpers/site.js';

/** Group wikis (ee; GitLab 17's wikis API under /groups/:id, and git at `<group full path>.wiki.git`). */
describe('group wikis', () => {
  let site: TestSite;
  let scratch: string;
  let maintainer: TestUser;
  let developer: TestUser;
  let reporter: TestUser;
  let guest: TestUser;
  let stranger: TestUser;
  let group: TestGroup;

  const git = (args: string[], cwd?: string) => gitClient(scratch, 20_000)(args, cwd);
  const wikiGit = (g: { id: number }, args: string[]) => runGit(['--git-dir', groupWikiRepositoryPath(site.dataDir, g.id), ...args]);
  const pages = (g: { id: number }) => `/groups/${g.id}/wikis`;
  const wikiUrl = (g: TestGroup, user: TestUser | null) => `${site.url.replace('://', user ? `://${user.username}:${user.token}@` : '://')}/${g.full_path}.wiki.git`;
  const blobEvents = (after: number) =>
    site.site.db.prepare("SELECT op, row_id, payload FROM geo_event_log WHERE id > ? AND kind = 'blob' AND table_name = 'group_wiki_repository' ORDER BY id").all(after) as { op: string; row_id: number; payload: string }[];

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-group-wikis-'));
    [maintainer, developer, reporter, guest, stranger] = await Promise.all([createUser(site), createUser(site, { name: 'Dev Eloper' }), createUser(site), createUser(site), createUser(site)]);
    group = await createGroup(site, { visibility: 'private' });
    await addMembers(site, 'groups', group.id, [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]]);
  });

  afterAll(async () => {
    await site?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('lists an empty wiki without creating it; creates a page as a commit with its Geo event; reads it in GitLab 17 shape', async () => {
    expect((await site.api(pages(group), { as: guest.token })).body).toEqual([]);
    const head = eventLogHead(site);
    const created = await site.api(pages(group), { method: 'POST', as: developer.token, body: { title: 'Home page', content: '# Welcome @' + developer.username + '\n' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ format: 'markdown', slug: 'Home-page', title: 'Home page', content: `# Welcome @${developer.username}\n`, encoding: 'UTF-8' });
    expect((await wikiGit(group, ['log', '-1', '--format=%an|%s', 'main'])).stdout.trim()).toBe(`Dev Eloper|${developer.username} created page: Home page`);
    const events = blobEvents(head);
    expect(events.map((event) => event.op)).toEqual(['created', 'updated']);
    expect(JSON.parse(events[1]!.payload)).toMatchObject({ type: 'group_wiki_repository', id: group.id, project_id: null, checksum: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(site.site.db.prepare('SELECT checksum FROM group_wiki_repositories WHERE group_id = ?').pluck().get(group.id)).toBe(JSON.parse(events[1]!.payload).checksum);

    expect((await site.api(pages(group), { as: guest.token })).body).toEqual([{ format: 'markdown', slug: 'Home-page', title: 'Home page' }]);
    expect((await site.api(`${pages(group)}?with_content=true`, { as: guest.token })).body).toEqual([created.body]);
    const html = await site.api(`${pages(group)}/Home-page?render_html=true`, { as: guest.token });
    expect(html.body.content).toContain('<h1>Welcome <a href=');
    expect(html.body.encoding).toBe('UTF-8');
  });

  it('edits and reads an older version by its commit', async () => {
    const before = (await wikiGit(group, ['rev-parse', 'main'])).stdout.trim();
    const edited = await site.api(`${pages(group)}/Home-page`, { method: 'PUT', as: developer.token, body: { content: 'second', format: 'org' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ slug: 'Home-page', format: 'org', content: 'second' });
    const old = await site.api(`${pages(group)}/Home-page?version=${before}`, { as: reporter.token });
    expect(old.body).toMatchObject({ format: 'markdown', content: `# Welcome @${developer.username}\n` });
    expect((await site.api(`${pages(group)}/Home-page?version=${'0'.repeat(40)}`, { as: reporter.token })).body).toEqual({ message: '404 Wiki Page Not Found' });
    expect((await site.api(`${pages(group)}/Home-page?render_html=1`, { as: reporter.token })).body.content).toBe('<pre>second</pre>');
  });

  it('clones with git, and a push shows in the API with its Geo event', async () => {
    const work = path.join(scratch, 'clone');
    await git(['clone', '--quiet', wikiUrl(group, reporter), work]);
    expect(await readFile(path.join(work, 'Home-page.org'), 'utf8')).toBe('second');
    const pushWork = path.join(scratch, 'push');
    await git(['clone', '--quiet', wikiUrl(group, developer), pushWork]);
    await writeFile(path.join(pushWork, 'Pushed.md'), 'from git\n');
    await git(['add', '.'], pushWork);
    await git(['commit', '--quiet', '-m', 'pushed page'], pushWork);
    const head = eventLogHead(site);
    await git(['push', '--quiet', 'origin', 'HEAD:main'], pushWork);
    expect((await site.api(`${pages(group)}/Pushed`, { as: guest.token })).body).toEqual({ format: 'markdown', slug: 'Pushed', title: 'Pushed', content: 'from git\n', encoding: 'UTF-8' });
    expect(blobEvents(head).map((event) => event.op)).toEqual(['updated']);

    // Guests read pages but may not clone; reporters may not push; outsiders see nothing.
    await expect(git(['clone', '--quiet', wikiUrl(group, guest), path.join(scratch, 'guest')])).rejects.toThrow(/403|not allowed/);
    await expect(git(['push', '--quiet', wikiUrl(group, reporter), 'HEAD:main'], pushWork)).rejects.toThrow(/403|not allowed/);
    await expect(git(['clone', '--quiet', wikiUrl(group, stranger), path.join(scratch, 'stranger')])).rejects.toThrow(/not found|404/);
    await expect(git(['clone', '--quiet', wikiUrl(group, null), path.join(scratch, 'anonymous')])).rejects.toThrow(/Authentication failed|could not read Username|401/);
  });

  it('stores an attachment as a commit', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('PNGDATA')], { type: 'image/png' }), 'diagram.png');
    const uploaded = await site.api(`${pages(group)}/attachments`, { method: 'POST', as: developer.token, form });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ file_name: 'diagram.png', branch: 'main', link: { url: uploaded.body.file_path, markdown: `![diagram](${uploaded.body.file_path})` } });
    expect((await wikiGit(group, ['show', `main:${uploaded.body.file_path}`])).stdout).toBe('PNGDATA');
  });

  it('answers the error rows: 400, 401, 403 by role, 404', async () => {
    expect((await site.api(pages(group), { method: 'POST', as: developer.token, body: { title: 'x' } })).body).toEqual({ message: 'content is missing' });
    expect((await site.api(pages(group), { method: 'POST', as: developer.token, body: { title: 'x', content: 'y', format: 'html' } })).body).toEqual({ message: 'format does not have a valid value' });
    expect((await site.api(`${pages(group)}?with_content=maybe`, { as: developer.token })).status).toBe(400);
    expect((await site.api(`${pages(group)}/Pushed`, { method: 'PUT', as: developer.token, body: {} })).status).toBe(400);
    const duplicate = await site.api(pages(group), { method: 'POST', as: developer.token, body: { title: 'Pushed', content: 'again' } });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.message.base[0]).toMatch(/^Duplicate page/);
    expect((await site.api(`${pages(group)}/attachments`, { method: 'POST', as: developer.token, body: {} })).body).toEqual({ message: 'file is missing' });

    expect((await site.api(pages(group), { method: 'POST', as: null, body: { title: 'a', content: 'b' } })).status).toBe(401);
    expect((await site.api(`${pages(group)}/Pushed`, { method: 'DELETE', as: null })).status).toBe(401);
    expect((await site.api(pages(group), { as: null })).body).toEqual({ message: '404 Group Not Found' });
    expect((await site.api(pages(group), { as: stranger.token })).status).toBe(404);
    expect((await site.api(pages(group), { method: 'POST', as: reporter.token, body: { title: 'a', content: 'b' } })).status).toBe(403);
    expect((await site.api(`${pages(group)}/Pushed`, { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(`${pages(group)}/nope`, { as: guest.token })).body).toEqual({ message: '404 Wiki Page Not Found' });
    expect((await site.api(`${pages(group)}/nope`, { method: 'DELETE', as: maintainer.token })).status).toBe(404);
    expect((await site.api('/groups/999999/wikis', { as: maintainer.token })).status).toBe(404);

    // A member of a project below a private group reads the group, not its wiki.
    const child = await site.api('/projects', { method: 'POST', body: { name: 'below', namespace_id: group.id } });
    await addMembers(site, 'projects', child.body.id, [[stranger, 30]]);
    expect((await site.api(`/groups/${group.id}`, { as: stranger.token })).status).toBe(200);
    expect((await site.api(pages(group), { as: stranger.token })).status).toBe(403);

    const removed = await site.api(`${pages(group)}/Pushed`, { method: 'DELETE', as: maintainer.token });
    expect(removed.status).toBe(204);
    expect((await site.api(`${pages(group)}/Pushed`, { as: guest.token })).status).toBe(404);
  });

  it('records a wiki whose checksum failed, or that changed unrecorded, when the primary job reconciles', async () => {
    const head = eventLogHead(site);
    site.site.db.prepare('UPDATE group_wiki_repositories SET checksum = NULL WHERE group_id = ?').run(group.id);
    expect(await reconcileGroupWikis(site.site.db, site.dataDir, { all: false })).toBe(1);
    const checksum = site.site.db.prepare('SELECT checksum FROM group_wiki_repositories WHERE group_id = ?').pluck().get(group.id);
    expect(checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(blobEvents(head).map((event) => [event.op, JSON.parse(event.payload).checksum])).toEqual([['updated', checksum]]);
    expect(await reconcileGroupWikis(site.site.db, site.dataDir, { all: true })).toBe(0);
  });

  it('reads a public group wiki anonymously; a deleted group takes its wiki with a Geo deleted event', async () => {
    const open = await createGroup(site, { visibility: 'public' });
    expect((await site.api(pages(open), { method: 'POST', body: { title: 'Open', content: 'hello' } })).status).toBe(201);
    expect((await site.api(`${pages(open)}/Open`, { as: null })).body).toMatchObject({ content: 'hello' });
    const work = path.join(scratch, 'public');
    await git(['clone', '--quiet', wikiUrl(open, null), work]);
    expect(await readFile(path.join(work, 'Open.md'), 'utf8')).toBe('hello');

    const head = eventLogHead(site);
    expect((await site.api(`/groups/${open.id}`, { method: 'DELETE' })).status).toBe(202);
    expect(blobEvents(head).map((event) => [event.op, event.row_id])).toEqual([['deleted', open.id]]);
    await expect(readFile(path.join(groupWikiRepositoryPath(site.dataDir, open.id), 'HEAD'))).rejects.toThrow(/ENOENT/);
  });
});

describe('group wikis in ce', () => {
  it('answer as an unknown route', async () => {
    const site = await startSite({ edition: 'ce' });
    try {
      const group = await createGroup(site, { visibility: 'public' });
      expect((await site.api(`/groups/${group.id}/wikis`)).body).toEqual({ error: '404 Not Found' });
      expect((await site.api(`/groups/${group.id}/wikis`, { method: 'POST', body: { title: 'a', content: 'b' } })).status).toBe(404);
    } finally {
      await site.stop();
    }
  });
});
