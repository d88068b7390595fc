import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { metric, sendSlowly, slots, until } from '../helpers/held-requests.js';
import { LOCAL_TEST_NETWORK, startSite, type TestSite } from '../helpers/site.js';

/** One pkt-line of git's protocol. */
const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;

describe('git concurrency limits per kind', () => {
  // One slot and one queue place for fetches, one slot and no queue for archives, patient queues.
  let site: TestSite;
  // The same for fetches, with a short queue timeout.
  let impatient: TestSite;
  let scratch: string;
  let owner: TestUser;
  let project: any;
  /** The impatient site's user and project of the same names. */
  let impatientOwner: TestUser;
  let head: string;

  const limits = (queueTimeoutMs: number) => ({
    ...LOCAL_TEST_NETWORK.admission,
    uploadPack: { limit: 1, queueLimit: 1, queueTimeoutMs },
    archive: { limit: 1, queueLimit: 0, queueTimeoutMs },
  });
  const git = (args: string[], cwd?: string) => gitClient(scratch, 60_000)(args, cwd);
  const rpcHeaders = (target: TestSite) => {
    const user = target === site ? owner : impatientOwner;
    return { authorization: `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`, 'content-type': 'application/x-git-upload-pack-request' };
  };
  const rpcPath = () => `/${project.path_with_namespace}.git/git-upload-pack`;
  /** A fetch whose request body stops after its first bytes: git waits for the rest, holding the upload-pack slot. */
  const holdFetch = (target: TestSite) => sendSlowly(target.url, rpcPath(), rpcHeaders(target), '0032want', 1000);
  /** A whole fetch of master (protocol v0): answered with the pack once it has a slot. */
  const fetchMaster = (target: TestSite) => {
    const body = `${pkt(`want ${head}\n`)}0000${pkt('done\n')}`;
    return sendSlowly(target.url, rpcPath(), rpcHeaders(target), body, body.length).answer;
  };

  beforeAll(async () => {
    site = await startSite({ admission: limits(60_000) });
    impatient = await startSite({ admission: limits(200) });
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-git-concurrency-'));
    owner = await createUser(site);
    project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    // master: one small commit, quick to fetch. noise: a file git cannot compress, larger than
    // what loopback buffers hold, so an archive of it that nobody reads stays in flight.
    const work = path.join(scratch, 'seed');
    await git(['init', '--quiet', '-b', 'master', work]);
    await writeFile(path.join(work, 'README.md'), 'small\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'small'], work);
    head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    await git(['checkout', '--quiet', '-b', 'noise'], work);
    await writeFile(path.join(work, 'noise.bin'), randomBytes(24 * 1024 * 1024));
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'noise'], work);
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'master', 'noise'], work);
    // The impatient site gets a user and project of the same names, and the same commit.
    impatientOwner = await createUser(impatient, { username: owner.username });
    const copy = await createProject(impatient, { path: project.path, visibility: 'private', default_branch: 'master' }, impatientOwner.token);
    expect(copy.path_with_namespace).toBe(project.path_with_namespace);
    await git(['push', '--quiet', remoteUrl(impatient.url, copy, impatientOwner), 'master'], work);
  }, 120_000);
  afterAll(async () => {
    await site?.stop();
    await impatient?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('queues a fetch behind a running one, refuses the next at once with 429 as text git shows, and serves the API and pushes meanwhile', async () => {
    const uploads = site.site.ctx.limits.uploadPack;
    const held = holdFetch(site);
    await until(() => slots(uploads).inFlight === 1);
    const queued = fetchMaster(site);
    await until(() => slots(uploads).queued === 1);

    const refused = await fetchMaster(site);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['content-type']).toMatch(/^text\/plain/);
    expect(refused.body).toBe('The server is busy: too many requests are waiting. Retry later.\n');
    // A clone's ref advertisement takes an upload-pack slot too: refused alike.
    const advertisement = await request(`${site.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { headers: { authorization: rpcHeaders(site).authorization } });
    expect(advertisement.statusCode).toBe(429);
    expect(await advertisement.body.text()).toBe('The server is busy: too many requests are waiting. Retry later.\n');

    // Clones fill their own limiter only: the API answers, and a push (its own kind) goes through.
    expect((await site.api(`/projects/${project.id}`)).status).toBe(200);
    const work = path.join(scratch, 'push');
    await git(['init', '--quiet', '-b', 'side', work]);
    await git(['commit', '--quiet', '--allow-empty', '-m', 'while fetches wait'], work);
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'HEAD:refs/heads/side'], work);
    expect(slots(uploads)).toMatchObject({ inFlight: 1, queued: 1 });
    expect(await metric(site, 'admission_rejected_total{limiter="git_upload_pack",reason="queue_full"}')).toBe(2);

    // The held fetch's client goes away: its slot passes to the queued fetch, which gets its pack.
    held.abort();
    const served = await queued;
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('application/x-git-upload-pack-result');
    expect(served.body).toContain('PACK');
    await until(() => slots(uploads).inFlight === 0 && slots(uploads).queued === 0);
  });

  it('answers 503 to a fetch that waited the whole queue timeout', async () => {
    const uploads = impatient.site.ctx.limits.uploadPack;
    const held = holdFetch(impatient);
    await until(() => slots(uploads).inFlight === 1);
    const waited = await fetchMaster(impatient);
    expect(waited.status).toBe(503);
    expect(waited.headers['retry-after']).toBe('1');
    expect(waited.body).toBe('The server is busy: the request waited too long for its turn. Retry later.\n');
    held.abort();
    await until(() => slots(uploads).inFlight === 0);
    expect(await metric(impatient, 'admission_rejected_total{limiter="git_upload_pack",reason="queue_timeout"}')).toBe(1);
  });

  it('holds an archive slot while its client does not read, refuses the next archive with 429 JSON, and frees the slot when the client goes away', async () => {
    const archives = site.site.ctx.limits.archive;
    const archivePath = `/projects/${project.id}/repository/archive.tar?sha=noise`;
    const unread = http.get(`${site.url}/api/v4${archivePath}`, { agent: false, headers: { 'private-token': owner.token } });
    unread.on('error', () => undefined);
    const response = await new Promise<http.IncomingMessage>((resolve) => unread.once('response', resolve));
    expect(response.statusCode).toBe(200);
    expect(slots(archives).inFlight).toBe(1);
    const refused = await site.api(archivePath, { as: owner.token });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: '429 Too Many Requests' });
    // The API is not the archive's limiter: it answers.
    expect((await site.api(`/projects/${project.id}/repository/branches`, { as: owner.token })).status).toBe(200);
    unread.destroy();
    await until(() => slots(archives).inFlight === 0);
  });
});
