import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { wikiRepositoryPath } from '../../src/storage/layout.js';
import { addMembers, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl, startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('wiki pages API', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;
  let maintainer: TestUser;
  let developer: TestUser;
  let reporter: TestUser;
  let stranger: TestUser;
  let project: any;
  let receiver: HookReceiver;

  const git = (args: string[], cwd?: string) => gitClient(scratch, 20_000)(args, cwd);
  const wikiGit = (p: { id: number }, args: string[]) => runGit(['--git-dir', wikiRepositoryPath(site.dataDir, p.id), ...args]);
  const pages = (p: { id: number }) => `/projects/${p.id}/wikis`;

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-wikis-'));
    owner = await createUser(site, { name: 'Wiki Owner' });
    maintainer = await createUser(site);
    developer = await createUser(site, { name: 'Dev Eloper' });
    reporter = await createUser(site);
    stranger = await createUser(site);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMembers(site, 'projects', project.id, [[maintainer, 40], [developer, 30], [reporter, 20]], owner.token);
    receiver = await startHookReceiver();
    const hook = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, wiki_page_events: true, push_events: false } });
    expect(hook.status).toBe(201);
  });

  afterAll(async () => {
    receiver?.close();
    await site?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('lists an empty wiki before any page exists, without creating the repository', async () => {
    const list = await site.api(pages(project), { as: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect((await site.api(`${pages(project)}/home`, { as: reporter.token })).body).toEqual({ message: '404 Wiki Page Not Found' });
  });

  it('creates a page as a commit by the caller, fires a wiki_page hook, and clones with git', async () => {
    const created = await site.api(pages(project), { method: 'POST', as: developer.token, body: { title: 'Home page', content: '# Welcome\n', format: 'markdown' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ format: 'markdown', slug: 'Home-page', title: 'Home page', content: '# Welcome\n' });

    const log = (await wikiGit(project, ['log', '-1', '--format=%an <%ae>|%cn|%s', 'master'])).stdout.trim();
    expect(log).toBe(`Dev Eloper <${developer.email}>|Dev Eloper|${developer.username} created page: Home page`);
    expect((await wikiGit(project, ['show', 'master:Home-page.md'])).stdout).toBe('# Welcome\n');

    const hook = await waitFor(() => receiver.received.find((item) => item.body.object_kind === 'wiki_page' && item.body.object_attributes.slug === 'Home-page'), { message: 'wiki_page hook' });
    expect(hook.headers['x-gitlab-event']).toBe('Wiki Page Hook');
    expect(hook.body.object_attributes).toMatchObject({ action: 'create', format: 'markdown', content: '# Welcome\n' });
    expect(hook.body.user.username).toBe(developer.username);

    const work = path.join(scratch, 'clone');
    await git(['clone', '--quiet', remoteUrl(site.url, project, reporter, '.wiki.git'), work]);
    expect(await readFile(path.join(work, 'Home-page.md'), 'utf8')).toBe('# Welcome\n');
  });

  it('reads a page pushed with git, in a directory, by its URL-encoded slug; lists with and without content', async () => {
    const work = path.join(scratch, 'push');
    await git(['clone', '--quiet', remoteUrl(site.url, project, developer, '.wiki.git'), work]);
    await mkdir(path.join(work, 'guides'), { recursive: true });
    await writeFile(path.join(work, 'guides', 'Getting-started.rdoc'), '= Start\n');
    await writeFile(path.join(work, 'notes.txt'), 'not a page\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'pushed page'], work);
    await git(['push', '--quiet', 'origin', 'HEAD:master'], work);

    const page = await site.api(`${pages(project)}/${encodeURIComponent('guides/Getting-started')}`, { as: reporter.token });
    expect(page.status).toBe(200);
    expect(page.body).toEqual({ format: 'rdoc', slug: 'guides/Getting-started', title: 'Getting started', content: '= Start\n' });

    const basic = await site.api(pages(project), { as: reporter.token });
    expect(basic.body).toEqual([
      { format: 'markdown', slug: 'Home-page', title: 'Home page' },
      { format: 'rdoc', slug: 'guides/Getting-started', title: 'Getting started' },
    ]);
    const full = await site.api(`${pages(project)}?with_content=true`, { as: reporter.token });
    expect(full.body.map((p: any) => p.content)).toEqual(['# Welcome\n', '= Start\n']);
  });

  it('updates content, title and format: a new title or format moves the file, in its directory', async () => {
    const edited = await site.api(`${pages(project)}/${encodeURIComponent('guides/Getting-started')}`, {
      method: 'PUT',
      as: developer.token,
      body: { title: 'First steps', format: 'asciidoc', content: '== Steps\n' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toEqual({ format: 'asciidoc', slug: 'guides/First-steps', title: 'First steps', content: '== Steps\n' });
    const moveHook = await waitFor(() => receiver.received.find((item) => item.body.object_kind === 'wiki_page' && item.body.object_attributes.slug === 'guides/First-steps'), { message: 'move hook' });
    expect(moveHook.body.object_attributes).toMatchObject({ action: 'update', format: 'asciidoc', title: 'First steps' });
    expect(receiver.received.filter((item) => item.body.object_kind === 'wiki_page' && item.body.object_attributes.action === 'delete')).toEqual([]);
        const files = (await wikiGit(project, ['ls-tree', '-r', '--name-only', 'master'])).stdout.trim().split('\n');
    expect(files).toContain('guides/First-steps.asciidoc');
    expect(files).not.toContain('guides/Getting-started.rdoc');

    const contentOnly = await site.api(`${pages(project)}/Home-page`, { method: 'PUT', as: developer.token, body: { content: 'changed\n' } });
    expect(contentOnly.body).toEqual({ format: 'markdown', slug: 'Home-page', title: 'Home page', content: 'changed\n' });
    const hook = await waitFor(() => receiver.received.find((item) => item.body.object_kind === 'wiki_page' && item.body.object_attributes.action === 'update' && item.body.object_attributes.slug === 'Home-page'), { message: 'update hook' });
    expect(hook.body.object_attributes.content).toBe('changed\n');
  });

  it('answers the error rows: 400 parameters and duplicates, 401, 403 by role, 404', async () => {
    const missing = await site.api(pages(project), { method: 'POST', as: developer.token, body: { title: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'content is missing' });
    const badFormat = await site.api(pages(project), { method: 'POST', as: developer.token, body: { title: 'x', content: 'y', format: 'html' } });
    expect(badFormat.body).toEqual({ message: 'format does not have a valid value' });
    const duplicate = await site.api(pages(project), { method: 'POST', as: developer.token, body: { title: 'Home page', content: 'again', format: 'org' } });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.message.base[0]).toMatch(/^Duplicate page/);
    const badTitle = await site.api(pages(project), { method: 'POST', as: developer.token, body: { title: '../escape', content: 'y' } });
    expect(badTitle.status).toBe(400);
    expect(badTitle.body).toEqual({ message: { title: ['is invalid'] } });
    const nothing = await site.api(`${pages(project)}/Home-page`, { method: 'PUT', as: developer.token, body: {} });
    expect(nothing.status).toBe(400);

    expect((await site.api(pages(project), { as: null })).status).toBe(404);
    expect((await site.api(pages(project), { method: 'POST', as: null, body: { title: 'a', content: 'b' } })).status).toBe(401);
    expect((await site.api(pages(project), { as: stranger.token })).status).toBe(404);
    expect((await site.api(pages(project), { method: 'POST', as: reporter.token, body: { title: 'a', content: 'b' } })).status).toBe(403);
    expect((await site.api(`${pages(project)}/Home-page`, { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(`${pages(project)}/nope`, { method: 'PUT', as: developer.token, body: { content: 'z' } })).body).toEqual({ message: '404 Wiki Page Not Found' });
    expect((await site.api(`${pages(project)}/nope`, { method: 'DELETE', as: maintainer.token })).status).toBe(404);
  });

  it('deletes a page as a commit (maintainers), 204', async () => {
    const removed = await site.api(`${pages(project)}/${encodeURIComponent('guides/First-steps')}`, { method: 'DELETE', as: maintainer.token });
    expect(removed.status).toBe(204);
    expect((await site.api(`${pages(project)}/${encodeURIComponent('guides/First-steps')}`, { as: reporter.token })).status).toBe(404);
    expect((await wikiGit(project, ['log', '-1', '--format=%s', 'master'])).stdout.trim()).toBe(`${maintainer.username} deleted page: First steps`);
    const hook = await waitFor(() => receiver.received.find((item) => item.body.object_kind === 'wiki_page' && item.body.object_attributes.action === 'delete'), { message: 'delete hook' });
    expect(hook.body.object_attributes).toMatchObject({ slug: 'guides/First-steps', title: 'First steps', format: 'asciidoc' });
    expect(hook.body.user.username).toBe(maintainer.username);
  });

  it('stores an attachment as a commit under uploads/<hex>/<name>', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('PNGDATA')], { type: 'image/png' }), 'my diagram.png');
    const uploaded = await site.api(`${pages(project)}/attachments`, { method: 'POST', as: developer.token, form });
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toMatchObject({ file_name: 'my diagram.png', branch: 'master' });
    expect(uploaded.body.file_path).toMatch(/^uploads\/[0-9a-f]{32}\/my diagram\.png$/);
    expect(uploaded.body.link).toEqual({ url: uploaded.body.file_path, markdown: `![my diagram](${uploaded.body.file_path})` });
    expect((await wikiGit(project, ['log', '-1', '--format=%an|%s', 'master'])).stdout.trim()).toBe('Dev Eloper|Upload attachment my diagram.png');
    expect((await wikiGit(project, ['show', `master:${uploaded.body.file_path}`])).stdout).toBe('PNGDATA');

    const other = new FormData();
    other.append('file', new Blob([Buffer.from('text')]), 'notes.txt');
    other.append('branch', 'drafts');
    const onBranch = await site.api(`${pages(project)}/attachments`, { method: 'POST', as: developer.token, form: other });
    expect(onBranch.status).toBe(201);
    expect(onBranch.body.link.markdown).toBe(`[notes.txt](${onBranch.body.file_path})`);
    expect((await wikiGit(project, ['show', `drafts:${onBranch.body.file_path}`])).stdout).toBe('text');

    expect((await site.api(`${pages(project)}/attachments`, { method: 'POST', as: developer.token, body: {} })).body).toEqual({ message: 'file is missing' });
    const asReporter = new FormData();
    asReporter.append('file', new Blob([Buffer.from('x')]), 'x.txt');
    expect((await site.api(`${pages(project)}/attachments`, { method: 'POST', as: reporter.token, form: asReporter })).status).toBe(403);
  });

  it('serializes concurrent API writes (each one commit) and keeps a page\'s own extension on an edit', async () => {
    const fresh = await createProject(site, { visibility: 'private' }, owner.token);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => site.api(pages(fresh), { method: 'POST', as: owner.token, body: { title: `Page ${i}`, content: `${i}\n` } })),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(Number((await wikiGit(fresh, ['rev-list', '--count', 'master'])).stdout.trim())).toBe(6);
    expect((await site.api(pages(fresh), { as: owner.token })).body).toHaveLength(6);

    const work = path.join(scratch, 'long-extension');
    await git(['clone', '--quiet', remoteUrl(site.url, fresh, owner, '.wiki.git'), work]);
    await writeFile(path.join(work, 'Long.markdown'), 'long\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'long'], work);
    await git(['push', '--quiet', 'origin', 'HEAD:master'], work);
    const edited = await site.api(`${pages(fresh)}/Long`, { method: 'PUT', as: owner.token, body: { content: 'longer\n', format: 'markdown' } });
    expect(edited.body).toMatchObject({ slug: 'Long', format: 'markdown', content: 'longer\n' });
    expect((await wikiGit(fresh, ['show', 'master:Long.markdown'])).stdout).toBe('longer\n');
  });

  it('answers 403 on every wiki route when the wiki is disabled, 404 to outsiders of a private project', async () => {
    const closed = await createProject(site, { visibility: 'public', wiki_enabled: false }, owner.token);
    expect((await site.api(pages(closed), { as: stranger.token })).status).toBe(403);
    expect((await site.api(pages(closed), { as: owner.token })).status).toBe(403);
    expect((await site.api(pages(closed), { method: 'POST', as: owner.token, body: { title: 'a', content: 'b' } })).status).toBe(403);
    const hidden = await createProject(site, { visibility: 'private', wiki_enabled: false }, owner.token);
    expect((await site.api(pages(hidden), { as: stranger.token })).status).toBe(404);
  });
});
