import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createdBy, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** Releases and their asset links (GitLab 17's releases.rb, release/links.rb) on real repositories. */
let site: TestSite;
let receiver: HookReceiver;
let home: string;
let project: any;
let developer: TestUser;
let reporter: TestUser;
let guest: TestUser;
let stranger: TestUser;
const enc = encodeURIComponent;

beforeAll(async () => {
  site = await startSite();
  receiver = await startHookReceiver();
  home = await mkdtemp(path.join(tmpdir(), 'geoforge-releases-home-'));
  [developer, reporter, guest, stranger] = [await createUser(site), await createUser(site), await createUser(site), await createUser(site)];
  project = await createProject(site, { initialize_with_readme: true, visibility: 'private' });
  await addMember(site, 'projects', project.id, developer, 30);
  await addMember(site, 'projects', project.id, reporter, 20);
  await addMember(site, 'projects', project.id, guest, 10);
  await createdBy(site, `/projects/${project.id}/hooks`, { url: `${receiver.origin}/releases`, push_events: false, releases_events: true });
  await createdBy(site, `/projects/${project.id}/milestones`, { title: 'v1' });
}, 60_000);

afterAll(async () => {
  await receiver?.stop();
  await site?.stop();
  await rm(home, { recursive: true, force: true });
});

describe('POST /projects/:id/releases', () => {
  it('creates the tag from ref, visible to git ls-remote, and answers GitLab 17 shape', async () => {
    const response = await site.api(`/projects/${project.id}/releases`, {
      method: 'POST',
      as: developer.token,
      body: {
        tag_name: 'v1.0',
        ref: 'master',
        name: 'First',
        description: 'Notes',
        milestones: ['v1'],
        assets: { links: [{ name: 'binary', url: 'https://example.com/bin', direct_asset_path: '/bin/app', link_type: 'package' }] },
      },
    });
    expect(response.status, response.text).toBe(201);
    const body = response.body;
    expect(body).toMatchObject({
      name: 'First',
      tag_name: 'v1.0',
      description: 'Notes',
      upcoming_release: false,
      author: { id: developer.id, username: developer.username },
      commit: { id: expect.stringMatching(/^[0-9a-f]{40}$/) },
      milestones: [{ title: 'v1', issue_stats: { total: 0, closed: 0 } }],
      commit_path: `/${project.path_with_namespace}/-/commit/${body.commit.id}`,
      tag_path: `/${project.path_with_namespace}/-/tags/v1.0`,
      evidences: [],
      _links: { self: `${site.url}/${project.path_with_namespace}/-/releases/v1.0`, edit_url: `${site.url}/${project.path_with_namespace}/-/releases/v1.0/edit` },
    });
    expect(body.assets.count).toBe(5);
    expect(body.assets.sources.map((source: any) => source.format)).toEqual(['zip', 'tar.gz', 'tar.bz2', 'tar']);
    expect(body.assets.links).toEqual([
      {
        id: expect.any(Number),
        name: 'binary',
        url: 'https://example.com/bin',
        direct_asset_url: `${site.url}/${project.path_with_namespace}/-/releases/v1.0/downloads/bin/app`,
        external: true,
        link_type: 'package',
      },
    ]);
    const git = gitClient(home);
    const remote = `${site.url.replace('://', `://${developer.username}:${developer.token}@`)}/${project.path_with_namespace}.git`;
    const lsRemote = await git(['ls-remote', '--tags', remote]);
    expect(lsRemote.stdout).toContain(`${body.commit.id}\trefs/tags/v1.0`);
    const tag = await site.api(`/projects/${project.id}/repository/tags/v1.0`);
    expect(tag.body.release).toEqual({ tag_name: 'v1.0', description: 'Notes' });
    await waitFor(() => receiver.deliveriesTo('/releases').some((delivery) => delivery.body.action === 'create'), { timeoutMs: 10_000 });
    const delivery = receiver.deliveriesTo('/releases').find((entry) => entry.body.action === 'create')!;
    expect(delivery.event).toBe('Release Hook');
    expect(delivery.body).toMatchObject({
      object_kind: 'release',
      action: 'create',
      tag: 'v1.0',
      name: 'First',
      url: `${site.url}/${project.path_with_namespace}/-/releases/v1.0`,
      project: { id: project.id },
      assets: { count: 5, links: [{ name: 'binary', link_type: 'package', external: true }] },
      commit: { id: body.commit.id },
    });
  });

  it('releases an existing tag without ref, with the tag name as default name', async () => {
    await createdBy(site, `/projects/${project.id}/repository/tags`, { tag_name: 'v0.9', ref: 'master' });
    const response = await site.api(`/projects/${project.id}/releases`, { method: 'POST', as: developer.token, body: { tag_name: 'v0.9', released_at: '2020-01-01T00:00:00Z' } });
    expect(response.status, response.text).toBe(201);
    expect(response.body).toMatchObject({ name: 'v0.9', tag_name: 'v0.9', description: null, released_at: '2020-01-01T00:00:00.000Z' });
    expect(response.body.milestones).toBeUndefined();
  });

  it('answers the error rows', async () => {
    const post = (body: unknown, as: string | null = developer.token) => site.api(`/projects/${project.id}/releases`, { method: 'POST', as, body });
    expect((await post({ tag_name: 'v2' }, null)).status).toBe(401);
    expect((await post({ tag_name: 'v2' }, reporter.token)).status).toBe(403);
    expect((await post({ tag_name: 'v2' }, stranger.token)).status).toBe(404);
    expect((await post({})).status).toBe(400);
    const noRef = await post({ tag_name: 'v2' });
    expect(noRef.status).toBe(422);
    expect(noRef.body.message).toBe('Ref is not specified');
    const badRef = await post({ tag_name: 'v2', ref: 'no-such-branch' });
    expect(badRef.status).toBe(400);
    expect(badRef.body.message).toBe('Target no-such-branch is invalid');
    expect((await post({ tag_name: 'v1.0' })).status).toBe(409);
    const milestone = await post({ tag_name: 'v2', ref: 'master', milestones: ['nope'] });
    expect(milestone.status).toBe(400);
    expect(milestone.body.message).toBe('Milestone(s) not found: nope');
    const badLink = await post({ tag_name: 'v2', ref: 'master', assets: { links: [{ name: 'x', url: 'javascript:alert(1)' }] } });
    expect(badLink.status).toBe(400);
    expect((await post({ tag_name: 'v2', ref: 'master', released_at: 'yesterday' })).status).toBe(400);
    expect((await post({ tag_name: 'v2', ref: 'master', assets: { links: [{ name: 'x' }] } })).status).toBe(400);
    // None of the refused creations made the tag.
    expect((await site.api(`/projects/${project.id}/repository/tags/v2`)).status).toBe(404);
  });

  it('refuses a protected tag to a developer who may not create it', async () => {
    await createdBy(site, `/projects/${project.id}/protected_tags`, { name: 'locked-*', create_access_level: 40 });
    const response = await site.api(`/projects/${project.id}/releases`, { method: 'POST', as: developer.token, body: { tag_name: 'locked-1', ref: 'master' } });
    expect(response.status).toBe(403);
    expect((await site.api(`/projects/${project.id}/releases`, { method: 'POST', body: { tag_name: 'locked-1', ref: 'master' } })).status).toBe(201);
    expect((await site.api(`/projects/${project.id}/releases/locked-1`, { method: 'PUT', as: developer.token, body: { name: 'x' } })).status).toBe(403);
  });
});

describe('GET /projects/:id/releases', () => {
  it('lists by released_at desc by default, sorts and pages', async () => {
    const list = await site.api(`/projects/${project.id}/releases`, { as: reporter.token });
    expect(list.status).toBe(200);
    const tags = list.body.map((release: any) => release.tag_name);
    expect(tags.at(-1)).toBe('v0.9');
    const asc = await site.api(`/projects/${project.id}/releases?order_by=released_at&sort=asc&per_page=1`, { as: reporter.token });
    expect(asc.body.map((release: any) => release.tag_name)).toEqual(['v0.9']);
    expect(asc.headers['x-total']).toBe(String(tags.length));
    expect(asc.headers['x-next-page']).toBe('2');
    const created = await site.api(`/projects/${project.id}/releases?order_by=created_at&sort=asc`, { as: reporter.token });
    expect(created.body[0].tag_name).toBe('v1.0');
    expect((await site.api(`/projects/${project.id}/releases?order_by=name`)).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/releases?sort=up`)).status).toBe(400);
  });

  it('shows guests of a private project the releases without their code', async () => {
    const list = await site.api(`/projects/${project.id}/releases`, { as: guest.token });
    expect(list.status).toBe(200);
    const release = list.body.find((entry: any) => entry.name === 'First');
    expect(release.tag_name).toBeUndefined();
    expect(release.commit).toBeUndefined();
    expect(release.assets.sources).toBeUndefined();
    expect(release.assets.count).toBe(1);
    expect(release._links).toEqual({});
    // One release needs download_code (GitLab's authorize_read_code!).
    expect((await site.api(`/projects/${project.id}/releases/v1.0`, { as: guest.token })).status).toBe(403);
    expect((await site.api(`/projects/${project.id}/releases`, { as: stranger.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/releases`, { as: null })).status).toBe(404);
  });

  it('reads one release and redirects permalink/latest to the latest', async () => {
    const one = await site.api(`/projects/${project.id}/releases/v1.0`, { as: reporter.token });
    expect(one.status).toBe(200);
    expect(one.body._links.edit_url).toBeUndefined();
    expect((await site.api(`/projects/${project.id}/releases/nope`)).status).toBe(404);
    const latest = await site.api(`/projects/${project.id}/releases/permalink/latest?foo=1&order_by=x`, { as: reporter.token });
    expect(latest.status).toBe(302);
    const newest = (await site.api(`/projects/${project.id}/releases?per_page=1`)).body[0].tag_name;
    expect(latest.headers.location).toBe(`${site.url}/api/v4/projects/${project.id}/releases/${enc(newest)}?foo=1`);
  });
});

describe('PUT and DELETE /projects/:id/releases/:tag_name', () => {
  it('edits name, description, released_at and milestones, and fires an update hook', async () => {
    const response = await site.api(`/projects/${project.id}/releases/v1.0`, {
      method: 'PUT',
      as: developer.token,
      body: { name: 'Renamed', description: 'New notes', released_at: '2999-01-01T00:00:00Z', milestones: [] },
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ name: 'Renamed', description: 'New notes', upcoming_release: true });
    expect(response.body.milestones).toBeUndefined();
    await waitFor(() => receiver.deliveriesTo('/releases').some((delivery) => delivery.body.action === 'update'), { timeoutMs: 10_000 });
  });

  it('answers the error rows', async () => {
    const put = (tag: string, body: unknown, as: string | null = developer.token) => site.api(`/projects/${project.id}/releases/${tag}`, { method: 'PUT', as, body });
    expect((await put('v1.0', { name: 'x' }, null)).status).toBe(401);
    expect((await put('v1.0', { name: 'x' }, reporter.token)).status).toBe(403);
    expect((await put('v1.0', { name: 'x' }, stranger.token)).status).toBe(404);
    expect((await put('nope', { name: 'x' })).status).toBe(404);
    const empty = await put('v1.0', {});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe('params is empty');
    expect((await put('v1.0', { milestones: ['nope'] })).status).toBe(400);
    expect((await put('v1.0', { released_at: 'soon' })).status).toBe(400);
  });

  it('deletes the release, answering it, and keeps the tag', async () => {
    expect((await site.api(`/projects/${project.id}/releases/v0.9`, { method: 'DELETE', as: reporter.token })).status).toBe(403);
    const response = await site.api(`/projects/${project.id}/releases/v0.9`, { method: 'DELETE', as: developer.token });
    expect(response.status).toBe(200);
    expect(response.body.tag_name).toBe('v0.9');
    expect((await site.api(`/projects/${project.id}/releases/v0.9`, { method: 'DELETE', as: developer.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/repository/tags/v0.9`)).body.release).toBeNull();
    await waitFor(() => receiver.deliveriesTo('/releases').some((delivery) => delivery.body.action === 'delete' && delivery.body.tag === 'v0.9'), { timeoutMs: 10_000 });
  });
});

describe('/projects/:id/releases/:tag_name/assets/links', () => {
  const links = () => `/projects/${project.id}/releases/v1.0/assets/links`;

  it('creates, lists, reads, edits and deletes links', async () => {
    const created = await site.api(links(), { method: 'POST', as: developer.token, body: { name: 'docs', url: `${site.url}/${project.path_with_namespace}/docs`, filepath: 'docs/index' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'docs', external: false, link_type: 'other', direct_asset_url: `${site.url}/${project.path_with_namespace}/-/releases/v1.0/downloads/docs/index` });
    const list = await site.api(links(), { as: guest.token });
    expect(list.status).toBe(200);
    expect(list.body.map((link: any) => link.name)).toEqual(['docs', 'binary']);
    expect(list.headers['x-total']).toBe('2');
    const id = created.body.id;
    expect((await site.api(`${links()}/${id}`, { as: guest.token })).body.name).toBe('docs');
    const edited = await site.api(`${links()}/${id}`, { method: 'PUT', as: developer.token, body: { name: 'manual', link_type: 'runbook' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'manual', link_type: 'runbook', url: `${site.url}/${project.path_with_namespace}/docs` });
    const removed = await site.api(`${links()}/${id}`, { method: 'DELETE', as: developer.token });
    expect(removed.status).toBe(200);
    expect(removed.body.name).toBe('manual');
    expect((await site.api(`${links()}/${id}`)).status).toBe(404);
  });

  it('answers the error rows', async () => {
    expect((await site.api(links(), { method: 'POST', as: null, body: { name: 'a', url: 'https://a.example' } })).status).toBe(401);
    expect((await site.api(links(), { method: 'POST', as: reporter.token, body: { name: 'a', url: 'https://a.example' } })).status).toBe(403);
    expect((await site.api(links(), { as: stranger.token })).status).toBe(404);
    expect((await site.api(`/projects/${project.id}/releases/nope/assets/links`)).status).toBe(404);
    expect((await site.api(`${links()}/999999`)).status).toBe(404);
    expect((await site.api(`${links()}/abc`)).status).toBe(400);
    expect((await site.api(links(), { method: 'POST', as: developer.token, body: { name: 'a' } })).status).toBe(400);
    expect((await site.api(links(), { method: 'POST', as: developer.token, body: { name: 'a', url: 'not a url' } })).status).toBe(400);
    expect((await site.api(links(), { method: 'POST', as: developer.token, body: { name: 'a', url: 'https://a.example', link_type: 'movie' } })).status).toBe(400);
    const taken = await site.api(links(), { method: 'POST', as: developer.token, body: { name: 'binary', url: 'https://other.example' } });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toEqual({ name: ['has already been taken'] });
    const first = (await site.api(links())).body[0];
    const noField = await site.api(`${links()}/${first.id}`, { method: 'PUT', as: developer.token, body: { link_type: 'image' } });
    expect(noField.status).toBe(400);
    expect(noField.body.message).toBe('name, url are missing, at least one parameter must be provided');
  });
});

describe('tags and releases together', () => {
  it('deleting a tag deletes its release and links', async () => {
    await createdBy(site, `/projects/${project.id}/releases`, { tag_name: 'gone', ref: 'master', assets: { links: [{ name: 'a', url: 'https://a.example' }] } });
    expect((await site.api(`/projects/${project.id}/repository/tags/gone`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/projects/${project.id}/releases/gone`)).status).toBe(404);
    const orphans = site.site.db.prepare('SELECT count(*) FROM release_links WHERE release_id NOT IN (SELECT id FROM releases)').pluck().get();
    expect(orphans).toBe(0);
  });
});
