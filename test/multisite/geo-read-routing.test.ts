import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { ROOT_TOKEN, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

const root = { username: 'root', token: ROOT_TOKEN };
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** A GET outside /api/v4 as root (git's Basic auth, or the API's token header for an upload); the body as bytes. */
async function web(site: SiteProcess, pathAndQuery: string, auth: 'basic' | 'token' = 'basic') {
  const headers = auth === 'basic' ? { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}` } : { 'private-token': ROOT_TOKEN };
  const response = await request(`${site.url}${pathAndQuery}`, { headers });
  return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
}

/** The refs a ref advertisement lists (pkt-lines `<sha> <ref>`), sorted, capabilities and HEAD's symref aside. */
function advertisedRefs(body: Buffer): string[] {
  return [...body.toString('utf8').matchAll(/[0-9a-f]{4}([0-9a-f]{40}) ([^\0\n]+)/g)].map(([, sha, ref]) => `${sha} ${ref}`).filter((line) => !line.endsWith(' HEAD')).sort();
}

/** Writes to a running secondary's registry: the tests steer a copy out of and back into the current state. */
function withSecondaryDb<T>(site: SiteProcess, work: (db: Database.Database) => T): T {
  const db = new Database(site.dbFile);
  db.pragma('busy_timeout = 5000');
  try {
    return work(db);
  } finally {
    db.close();
  }
}

describe('reading from the nearest site: a secondary serves current copies and proxies the rest to the primary', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let home: string;
  let git: ReturnType<typeof gitClient>;
  let project: { id: number; path_with_namespace: string };

  const infoRefs = (site: SiteProcess) => web(site, `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`);
  const registryRow = (type: string, itemId: number) =>
    withSecondaryDb(secondary, (db) => db.prepare('SELECT state, checksum FROM geo_registry WHERE item_type = ? AND item_id = ?').get(type, itemId) as { state: string; checksum: string } | undefined);

  /** A failed copy whose retry is far off: the sync workers leave it alone, so the primary must answer. */
  const failCopy = (type: string, itemId: number) =>
    withSecondaryDb(secondary, (db) => db.prepare("UPDATE geo_registry SET state = 'failed', retry_at = ? WHERE item_type = ? AND item_id = ?").run(Date.now() + 3_600_000, type, itemId));
  const synced = (type: string, itemId: number) =>
    waitFor(() => registryRow(type, itemId)?.state === 'synced', { timeoutMs: 20_000, message: `${type} ${itemId} synced on the secondary` });

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'geoforge-read-routing-'));
    git = gitClient(home);
    const created = await primary.api('/projects', { method: 'POST', body: { name: `routing-${Date.now()}`, visibility: 'private' } });
    expect(created.status).toBe(201);
    project = created.body;
    const work = path.join(home, 'work');
    await git(['init', '-q', '-b', 'main', work]);
    await git(['commit', '-q', '--allow-empty', '-m', 'first'], work);
    await git(['tag', 'v1'], work);
    await git(['push', '-q', remoteUrl(primary.url, project, root), 'main', 'v1'], work);
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('never serves stale refs: right after a push, whichever site answers advertises the primary refs', async () => {
    const fromPrimary = advertisedRefs((await infoRefs(primary)).body);
    expect(fromPrimary).toHaveLength(2);
    // Until the project row has replicated the secondary does not know the path; after that it must never lag.
    await waitFor(async () => (await secondary.api(`/projects/${project.id}`)).status === 200, { message: 'project replicated' });
    const answer = await infoRefs(secondary);
    expect(answer.status).toBe(200);
    expect(advertisedRefs(answer.body)).toEqual(fromPrimary);
    expect([primary.name, secondary.name]).toContain(answer.headers['x-geoforge-node']);
  });

  it('clones from its own copy once synced, and through the primary while the copy is not current', async () => {
    await synced('repository', project.id);
    const want = advertisedRefs((await infoRefs(primary)).body);

    const local = await infoRefs(secondary);
    expect(local.headers['x-geoforge-node']).toBe(secondary.name);
    expect(advertisedRefs(local.body)).toEqual(want);

    // The registry says the local copy no longer matches the primary's checksum: what a push the
    // secondary has not fetched yet looks like. The sync workers only revisit it at reverification.
    const { checksum } = registryRow('repository', project.id)!;
    withSecondaryDb(secondary, (db) => db.prepare("UPDATE geo_registry SET checksum = 'behind' WHERE item_type = 'repository' AND item_id = ?").run(project.id));
    const proxied = await infoRefs(secondary);
    expect(proxied.status).toBe(200);
    expect(proxied.headers['x-geoforge-node']).toBe(primary.name);
    expect(proxied.headers['content-type']).toBe('application/x-git-upload-pack-advertisement');
    expect(advertisedRefs(proxied.body)).toEqual(want);
    // A whole clone goes through the primary: ref advertisement and upload-pack, the pack streamed back.
    const viaPrimary = path.join(home, 'via-primary');
    await git(['clone', '-q', '--mirror', remoteUrl(secondary.url, project, root), viaPrimary]);
    expect((await git(['for-each-ref', '--format=%(objectname) %(refname)'], viaPrimary)).stdout.trim().split('\n').sort()).toEqual(want);

    withSecondaryDb(secondary, (db) => db.prepare("UPDATE geo_registry SET checksum = ? WHERE item_type = 'repository' AND item_id = ?").run(checksum, project.id));
    expect((await infoRefs(secondary)).headers['x-geoforge-node']).toBe(secondary.name);
    const viaSecondary = path.join(home, 'via-secondary');
    await git(['clone', '-q', '--mirror', remoteUrl(secondary.url, project, root), viaSecondary]);
    expect((await git(['for-each-ref', '--format=%(objectname) %(refname)'], viaSecondary)).stdout.trim().split('\n').sort()).toEqual(want);
  });

  it('takes a push through the primary, with the pusher’s own credentials', async () => {
    const work = path.join(home, 'push');
    await git(['clone', '-q', '-b', 'main', remoteUrl(secondary.url, project, root), work]);
    await git(['commit', '-q', '--allow-empty', '-m', 'pushed through the secondary'], work);
    await git(['push', '-q', 'origin', 'HEAD:main'], work);
    const head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    const onPrimary = await primary.api(`/projects/${project.id}/repository/branches/main`);
    expect(onPrimary.body.commit.id).toBe(head);
    // Without credentials the primary challenges, as it would directly.
    const anonymous = await request(`${secondary.url}/${project.path_with_namespace}.git/info/refs?service=git-receive-pack`);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['x-geoforge-node']).toBe(primary.name);
    await anonymous.body.dump();
  });

  it('serves an upload from its own synced copy and from the primary otherwise, the same bytes either way', async () => {
    const content = Buffer.from(`routing upload ${Date.now()}\n`.repeat(1000));
    const form = new FormData();
    form.set('file', new Blob([content]), 'notes.txt');
    const created = await fetch(`${primary.url}/api/v4/projects/${project.id}/uploads`, { method: 'POST', body: form, headers: { 'private-token': ROOT_TOKEN } });
    expect(created.status).toBe(201);
    const { full_path: fullPath } = (await created.json()) as { full_path: string };
    const secret = /\/uploads\/([0-9a-f]{32})\//.exec(fullPath)![1]!;
    const uploadId = await waitFor(
      () => withSecondaryDb(secondary, (db) => db.prepare('SELECT id FROM uploads WHERE secret = ?').pluck().get(secret) as number | undefined),
      { message: 'upload row replicated' },
    );

    // Right away: the copy may not be there yet, but the bytes are always the primary's.
    const early = await web(secondary, fullPath, 'token');
    expect(early.status).toBe(200);
    expect(sha256(early.body)).toBe(sha256(content));

    await synced('attachment', uploadId);
    const local = await web(secondary, fullPath, 'token');
    expect(local.headers['x-geoforge-node']).toBe(secondary.name);
    expect(sha256(local.body)).toBe(sha256(content));

    failCopy('attachment', uploadId);
    const proxied = await web(secondary, fullPath, 'token');
    expect(proxied.status).toBe(200);
    expect(proxied.headers['x-geoforge-node']).toBe(primary.name);
    expect(proxied.headers['content-type']).toBe(local.headers['content-type']);
    expect(sha256(proxied.body)).toBe(sha256(content));
    // A caller who may not read the project is refused here, before anything goes to the primary.
    const stranger = await request(`${secondary.url}${fullPath}`);
    expect(stranger.statusCode).toBe(404);
    await stranger.body.dump();
  });

  it('serves LFS downloads from synced copies, sends uploads and unsynced objects to the primary', async () => {
    const content = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256));
    const oid = sha256(content);
    const lfs = (site: SiteProcess, suffix: string, init: { method: 'GET' | 'POST' | 'PUT'; body?: Buffer | string }) =>
      request(`${site.url}/${project.path_with_namespace}.git/${suffix}`, {
        method: init.method,
        body: init.body,
        headers: { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`, accept: 'application/vnd.git-lfs+json', 'content-type': 'application/vnd.git-lfs+json' },
      });
    const batch = async (site: SiteProcess, operation: 'download' | 'upload') => {
      const response = await lfs(site, 'info/lfs/objects/batch', { method: 'POST', body: JSON.stringify({ operation, objects: [{ oid, size: content.length }] }) });
      return { status: response.statusCode, node: response.headers['x-geoforge-node'], body: (await response.body.json()) as { objects: { actions?: Record<string, { href: string }> }[] } };
    };
    const download = async (site: SiteProcess) => {
      const response = await lfs(site, `gitlab-lfs/objects/${oid}`, { method: 'GET' });
      return { status: response.statusCode, node: response.headers['x-geoforge-node'], sha: sha256(Buffer.from(await response.body.arrayBuffer())) };
    };

    const offer = await batch(primary, 'upload');
    const put = await request(offer.body.objects[0]!.actions!.upload!.href, { method: 'PUT', body: content, headers: { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}` } });
    expect(put.statusCode).toBe(200);
    await put.body.dump();
    const objectId = await waitFor(() => withSecondaryDb(secondary, (db) => db.prepare('SELECT id FROM lfs_objects WHERE oid = ?').pluck().get(oid) as number | undefined), {
      message: 'lfs object row replicated',
    });
    await synced('lfs_object', objectId);

    const local = await batch(secondary, 'download');
    expect(local).toMatchObject({ status: 200, node: secondary.name });
    expect(local.body.objects[0]!.actions!.download!.href.startsWith(secondary.url)).toBe(true);
    expect(await download(secondary)).toEqual({ status: 200, node: secondary.name, sha: oid });

    failCopy('lfs_object', objectId);
    // The primary answers the batch, so its download actions point at the primary itself.
    const proxied = await batch(secondary, 'download');
    expect(proxied).toMatchObject({ status: 200, node: primary.name });
    expect(proxied.body.objects[0]!.actions!.download!.href.startsWith(primary.url)).toBe(true);
    expect(await download(secondary)).toEqual({ status: 200, node: primary.name, sha: oid });

    // An upload offered to the secondary is the primary's to answer; it already has this object.
    const upload = await batch(secondary, 'upload');
    expect(upload).toMatchObject({ status: 200, node: primary.name });
    expect(upload.body.objects[0]!.actions).toBeUndefined();
  });

  it('serves a job artifact from its synced copy and from the primary otherwise', async () => {
    const head = (await primary.api(`/projects/${project.id}/repository/branches/main`)).body.commit.id as string;
    expect((await primary.api(`/projects/${project.id}/statuses/${head}`, { method: 'POST', body: { state: 'success', name: 'build' } })).status).toBe(201);
    const job = (await primary.api(`/projects/${project.id}/jobs`)).body.find((candidate: { name: string }) => candidate.name === 'build');
    const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
    const form = new FormData();
    form.set('file', new Blob([content]), 'artifacts.zip');
    const url = `/api/v4/projects/${project.id}/jobs/${job.id}/artifacts`;
    const uploaded = await fetch(`${primary.url}${url}`, { method: 'POST', body: form, headers: { 'private-token': ROOT_TOKEN } });
    expect(uploaded.status).toBe(201);
    const artifactId = await waitFor(() => withSecondaryDb(secondary, (db) => db.prepare('SELECT id FROM ci_job_artifacts WHERE job_id = ?').pluck().get(job.id) as number | undefined), {
      message: 'artifact row replicated',
    });
    const fetchArtifact = async () => {
      const response = await web(secondary, url, 'token');
      return { status: response.status, node: response.headers['x-geoforge-node'], sha: sha256(response.body), disposition: response.headers['content-disposition'] };
    };
    await synced('job_artifact', artifactId);
    const expected = { status: 200, sha: sha256(content), disposition: 'attachment; filename="artifacts.zip"' };
    expect(await fetchArtifact()).toEqual({ ...expected, node: secondary.name });
    failCopy('job_artifact', artifactId);
    expect(await fetchArtifact()).toEqual({ ...expected, node: primary.name });
  });

  it('has the primary serve avatars, which Geo does not replicate', async () => {
    const image = Buffer.from('\x89PNG avatar bytes of the primary');
    const form = new FormData();
    form.set('avatar', new Blob([image], { type: 'image/png' }), 'face.png');
    const rootId = (await primary.api('/user')).body.id as number;
    const updated = await fetch(`${primary.url}/api/v4/users/${rootId}`, { method: 'PUT', body: form, headers: { 'private-token': ROOT_TOKEN } });
    expect(updated.status).toBe(200);
    const avatarPath = new URL(((await updated.json()) as { avatar_url: string }).avatar_url).pathname;
    await waitFor(async () => (await secondary.api('/user')).body.avatar_url?.endsWith(avatarPath), { message: 'avatar replicated' });
    const served = await web(secondary, avatarPath);
    expect({ status: served.status, node: served.headers['x-geoforge-node'], sha: sha256(served.body) }).toEqual({ status: 200, node: primary.name, sha: sha256(image) });
    expect((await web(secondary, avatarPath.replace('face.png', 'other.png'))).status).toBe(404);
  });
});
