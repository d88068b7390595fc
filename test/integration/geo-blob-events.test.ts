import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBlobEvent, type BlobEvent } from '../../src/geo/blobs.js';
import { fillRepositoryStates } from '../../src/geo/fill-repository-states.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { recordRepositoryChange } from '../../src/geo/repository-events.js';
import { geoAuthorization, GEO_AUTH_SCHEME, geoPathOf, signGeoToken } from '../../src/geo/signing.js';
import { GitError, runGit } from '../../src/git/cli.js';
import { repositoryPath, wikiRepositoryPath } from '../../src/storage/layout.js';
import { createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

const SECRET = 'geo-secret-for-blob-event-tests';
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

describe('Geo blob events, transfers and git fetch on the primary', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;

  const git = (args: string[], cwd?: string, env?: Record<string, string>) => gitClient(scratch, 20_000)(args, cwd, env);
  const lastEventId = () => site.site.db.prepare('SELECT coalesce(max(id), 0) FROM geo_event_log').pluck().get() as number;
  /** Blob events appended after `afterId`, in order, as a secondary reads them. */
  const blobEventsAfter = (afterId: number): BlobEvent[] =>
    (site.site.db.prepare("SELECT payload FROM geo_event_log WHERE kind = 'blob' AND id > ? ORDER BY id").pluck().all(afterId) as string[]).map((payload) => {
      const event = parseBlobEvent(JSON.parse(payload));
      expect(event).not.toBeNull();
      return event!;
    });
  const stateOf = (projectId: number) => site.site.db.prepare('SELECT * FROM repository_states WHERE project_id = ?').get(projectId) as any;
  const checksumOf = (projectId: number, type: 'repository' | 'wiki' = 'repository') =>
    refsChecksum(type === 'wiki' ? wikiRepositoryPath(site.dataDir, projectId) : repositoryPath(site.dataDir, projectId));
  const relative = (file: string) => path.relative(site.dataDir, file);
  const pushFile = async (url: string, work: string, file: string, content: string, refspec = 'HEAD:refs/heads/master') => {
    await writeFile(path.join(work, file), content);
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', `add ${file}`], work);
    await git(['push', '--quiet', url, refspec], work);
  };
  const newWorkTree = async () => {
    const work = await mkdtemp(path.join(scratch, 'work-'));
    await git(['init', '--quiet', '-b', 'master', work]);
    return work;
  };

  beforeAll(async () => {
    site = await startSite({ geoSecret: SECRET });
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-geo-blob-'));
    owner = await createUser(site);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  describe('refsChecksum', () => {
    it('is null for a missing repository and covers HEAD and every ref, in refname order', async () => {
      expect(await refsChecksum(path.join(scratch, 'nothing.git'))).toBeNull();
      const bare = path.join(scratch, 'checksum.git');
      await git(['init', '--bare', '--quiet', '-b', 'main', bare]);
      expect(await refsChecksum(bare)).toBe(sha256('HEAD refs/heads/main\n'));
      const work = await newWorkTree();
      await writeFile(path.join(work, 'a'), 'a');
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', 'a'], work);
      const sha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
      await git(['push', '--quiet', bare, 'HEAD:refs/heads/main', 'HEAD:refs/heads/Zeta', 'HEAD:refs/tags/v1'], work);
      // Byte order: `Zeta` sorts before `main`.
      expect(await refsChecksum(bare)).toBe(sha256(`HEAD refs/heads/main\n${sha} refs/heads/Zeta\n${sha} refs/heads/main\n${sha} refs/tags/v1\n`));
      await runGit(['--git-dir', bare, 'symbolic-ref', 'HEAD', 'refs/heads/Zeta']);
      expect(await refsChecksum(bare)).toBe(sha256(`HEAD refs/heads/Zeta\n${sha} refs/heads/Zeta\n${sha} refs/heads/main\n${sha} refs/tags/v1\n`));
    });
  });

  describe('repository and wiki events', () => {
    it('appends `created` with the empty repository checksum when a project is created, and lists it in repository_states', async () => {
      const before = lastEventId();
      const project = await createProject(site, { default_branch: 'master' }, owner.token);
      const checksum = await checksumOf(project.id);
      expect(checksum).toBe(sha256('HEAD refs/heads/master\n'));
      expect(blobEventsAfter(before)).toEqual([
        { type: 'repository', action: 'created', id: project.id, project_id: project.id, path: relative(repositoryPath(site.dataDir, project.id)), checksum, size: null },
      ]);
      expect(stateOf(project.id)).toMatchObject({ repository_checksum: checksum, wiki_checksum: null, wiki_updated_at: null });
      expect(stateOf(project.id).repository_updated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    });

    it('appends `updated` after each push that landed, with the pushed refs in the checksum, and none for a refused push', async () => {
      const project = await createProject(site, { default_branch: 'master' }, owner.token);
      const url = remoteUrl(site.url, project, owner);
      const work = await newWorkTree();
      let before = lastEventId();
      await pushFile(url, work, 'README.md', 'one\n');
      let checksum = await checksumOf(project.id);
      expect(blobEventsAfter(before)).toEqual([expect.objectContaining({ type: 'repository', action: 'updated', id: project.id, checksum })]);
      expect(stateOf(project.id).repository_checksum).toBe(checksum);

      before = lastEventId();
      await git(['tag', 'v1.0'], work);
      await git(['push', '--quiet', url, 'v1.0'], work);
      checksum = await checksumOf(project.id);
      expect(blobEventsAfter(before)).toEqual([expect.objectContaining({ action: 'updated', checksum })]);
      expect(stateOf(project.id).repository_checksum).toBe(checksum);

      // A force push to the protected default branch is refused by the pre-receive hook: nothing moved, nothing appended.
      before = lastEventId();
      await git(['commit', '--quiet', '--amend', '-m', 'rewritten'], work);
      await expect(git(['push', '--quiet', '--force', url, 'HEAD:refs/heads/master'], work)).rejects.toBeInstanceOf(GitError);
      expect(blobEventsAfter(before)).toEqual([]);
      expect(stateOf(project.id).repository_checksum).toBe(checksum);
    });

    it('appends wiki `created` on the first use of a wiki and `updated` for its pushes', async () => {
      const project = await createProject(site, {}, owner.token);
      const before = lastEventId();
      const work = await newWorkTree();
      await pushFile(remoteUrl(site.url, project, owner, '.wiki.git'), work, 'home.md', '# Home\n');
      const checksum = await checksumOf(project.id, 'wiki');
      const events = blobEventsAfter(before);
      expect(events.map((event) => [event.type, event.action])).toEqual([
        ['wiki', 'created'],
        ['wiki', 'updated'],
      ]);
      expect(events[0]).toMatchObject({ id: project.id, project_id: project.id, path: relative(wikiRepositoryPath(site.dataDir, project.id)), checksum: sha256('HEAD refs/heads/master\n') });
      expect(events[1]!.checksum).toBe(checksum);
      expect(stateOf(project.id)).toMatchObject({ wiki_checksum: checksum, repository_checksum: await checksumOf(project.id) });
    });

    it('appends `updated` for commits, branches and a new default branch made through the API', async () => {
      const project = await createProject(site, { default_branch: 'master' }, owner.token);
      const base = `/projects/${project.id}/repository`;
      const expectUpdated = async (action: () => Promise<{ status: number }>, status: number) => {
        const before = lastEventId();
        expect((await action()).status).toBe(status);
        const checksum = await checksumOf(project.id);
        expect(blobEventsAfter(before)).toEqual([expect.objectContaining({ type: 'repository', action: 'updated', id: project.id, checksum })]);
        expect(stateOf(project.id).repository_checksum).toBe(checksum);
      };
      const commit = { branch: 'master', commit_message: 'first', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] };
      await expectUpdated(() => site.api(`${base}/commits`, { method: 'POST', body: commit, as: owner.token }), 201);
      await expectUpdated(() => site.api(`${base}/branches?branch=feature&ref=master`, { method: 'POST', as: owner.token }), 201);
      await expectUpdated(() => site.api(`${base}/files/b.txt`, { method: 'POST', body: { branch: 'feature', content: 'b', commit_message: 'b' }, as: owner.token }), 201);
      await expectUpdated(() => site.api(`/projects/${project.id}`, { method: 'PUT', body: { default_branch: 'feature' }, as: owner.token }), 200);
      expect(stateOf(project.id).repository_checksum).toBe(sha256(`HEAD refs/heads/feature\n${(await git(['--git-dir', repositoryPath(site.dataDir, project.id), 'for-each-ref', '--format=%(objectname) %(refname)'])).stdout}`));
      await expectUpdated(() => site.api(`${base}/branches/master`, { method: 'DELETE', as: owner.token }), 204);

      // A refused API write appends nothing.
      const before = lastEventId();
      expect((await site.api(`${base}/branches/feature`, { method: 'DELETE', as: owner.token })).status).toBe(405);
      expect((await site.api(`${base}/branches?branch=x&ref=nope`, { method: 'POST', as: owner.token })).status).toBe(400);
      expect(blobEventsAfter(before)).toEqual([]);
    });

    it('appends `renamed` with the recorded checksums for a rename, a new path and a transfer, and nothing for other updates', async () => {
      const project = await createProject(site, {}, owner.token);
      const checksum = stateOf(project.id).repository_checksum;
      let before = lastEventId();
      expect((await site.api(`/projects/${project.id}`, { method: 'PUT', body: { description: 'just text' }, as: owner.token })).status).toBe(200);
      expect(blobEventsAfter(before)).toEqual([]);
      expect((await site.api(`/projects/${project.id}`, { method: 'PUT', body: { name: 'Renamed', path: 'renamed-path' }, as: owner.token })).status).toBe(200);
      expect(blobEventsAfter(before)).toEqual([expect.objectContaining({ type: 'repository', action: 'renamed', id: project.id, checksum })]);

      const group = await createGroup(site);
      before = lastEventId();
      expect((await site.api(`/groups/${group.id}/projects/${project.id}`, { method: 'POST' })).status).toBe(201);
      expect(blobEventsAfter(before)).toEqual([expect.objectContaining({ type: 'repository', action: 'renamed', id: project.id, checksum })]);
    });

    it('appends `created` when a fork or an import finished cloning, with the clone checksum', async () => {
      const source = await createProject(site, { visibility: 'public', default_branch: 'master' }, owner.token);
      await pushFile(remoteUrl(site.url, source, owner), await newWorkTree(), 'src.txt', 'source\n');
      const forker = await createUser(site);
      const before = lastEventId();
      const fork = await site.api(`/projects/${source.id}/fork`, { method: 'POST', as: forker.token });
      expect(fork.status).toBe(201);
      const imported = await createProject(site, { name: 'imported', import_url: `${site.url}/${source.path_with_namespace}.git` }, owner.token);
      for (const id of [fork.body.id, imported.id]) {
        const event = await waitFor(() => blobEventsAfter(before).find((e) => e.id === id));
        expect(event).toMatchObject({ type: 'repository', action: 'created', checksum: await checksumOf(id) });
        expect(event.checksum).toBe(await checksumOf(source.id));
        expect(stateOf(id).repository_checksum).toBe(event.checksum);
      }
    });

    it('appends repository and wiki `deleted` with the project deletion, and the inventory row goes with it', async () => {
      const project = await createProject(site, {}, owner.token);
      const before = lastEventId();
      expect((await site.api(`/projects/${project.id}`, { method: 'DELETE', as: owner.token })).status).toBe(202);
      expect(blobEventsAfter(before)).toEqual([
        { type: 'repository', action: 'deleted', id: project.id, project_id: project.id, path: relative(repositoryPath(site.dataDir, project.id)), checksum: null, size: null },
        { type: 'wiki', action: 'deleted', id: project.id, project_id: project.id, path: relative(wikiRepositoryPath(site.dataDir, project.id)), checksum: null, size: null },
      ]);
      expect(stateOf(project.id)).toBeUndefined();
    });

    it('appends nothing for an update that moved no ref, and `updated` once a ref moved', async () => {
      const project = await createProject(site, {}, owner.token);
      const before = lastEventId();
      await recordRepositoryChange(site.site.db, site.dataDir, project.id, 'repository', 'updated');
      expect(blobEventsAfter(before)).toEqual([]);
      await pushFile(remoteUrl(site.url, project, owner), await newWorkTree(), 'README.md', 'moved\n');
      const pushed = blobEventsAfter(before);
      expect(pushed).toEqual([expect.objectContaining({ type: 'repository', action: 'updated', id: project.id, checksum: await checksumOf(project.id) })]);
      await recordRepositoryChange(site.site.db, site.dataDir, project.id, 'repository', 'updated');
      expect(blobEventsAfter(before)).toEqual(pushed);
    });

    it('appends nothing for a create that fails validation', async () => {
      const taken = await createProject(site, {}, owner.token);
      const before = lastEventId();
      expect((await site.api('/projects', { method: 'POST', body: { name: taken.name }, as: owner.token })).status).toBe(400);
      expect(blobEventsAfter(before)).toEqual([]);
    });

    it('fills repository_states for projects that have none, without events, and never overwrites a newer row', async () => {
      const project = await createProject(site, {}, owner.token);
      await pushFile(remoteUrl(site.url, project, owner, '.wiki.git'), await newWorkTree(), 'home.md', 'wiki\n');
      const other = await createProject(site, {}, owner.token);
      site.site.db.prepare('DELETE FROM repository_states WHERE project_id IN (?, ?)').run(project.id, other.id);
      site.site.db.prepare("UPDATE repository_states SET repository_checksum = 'kept' WHERE project_id = (SELECT max(project_id) FROM repository_states)").run();
      const kept = site.site.db.prepare("SELECT project_id FROM repository_states WHERE repository_checksum = 'kept'").pluck().get() as number;
      const before = lastEventId();
      // (Counts are not asserted: the site's own geo-repository-states job may run at the same moment.)
      await fillRepositoryStates(site.site.db, site.dataDir, { pageSize: 1 });
      expect(stateOf(project.id)).toMatchObject({ repository_checksum: await checksumOf(project.id), wiki_checksum: await checksumOf(project.id, 'wiki') });
      expect(stateOf(other.id)).toMatchObject({ repository_checksum: await checksumOf(other.id), wiki_checksum: null });
      expect(stateOf(kept).repository_checksum).toBe('kept');
      expect(blobEventsAfter(before)).toEqual([]);
      site.site.db.prepare('UPDATE repository_states SET repository_checksum = ? WHERE project_id = ?').run(await checksumOf(kept), kept);
    });

    it('still appends the event when the checksum fails, and leaves the project for the fill job until git can read it again', async () => {
      const project = await createProject(site, {}, owner.token);
      const head = path.join(repositoryPath(site.dataDir, project.id), 'HEAD');
      await writeFile(head, 'not a ref\n');
      const before = lastEventId();
      await recordRepositoryChange(site.site.db, site.dataDir, project.id, 'repository', 'updated');
      expect(blobEventsAfter(before)).toEqual([expect.objectContaining({ type: 'repository', action: 'updated', id: project.id, checksum: null })]);
      expect(stateOf(project.id)).toBeUndefined();
      await expect(fillRepositoryStates(site.site.db, site.dataDir)).rejects.toThrow(/1 project\(s\) left without repository_states/);
      expect(stateOf(project.id)).toBeUndefined();
      await writeFile(head, 'ref: refs/heads/master\n');
      await fillRepositoryStates(site.site.db, site.dataDir);
      expect(stateOf(project.id).repository_checksum).toBe(await checksumOf(project.id));
    });
  });

  /** A token as a secondary signs it for one call (method and URL). */
  const signedFor = (url: string, method = 'GET', secret = SECRET) => geoAuthorization(secret, 'secondary-1', { method, path: geoPathOf(new URL(url).pathname) });
  /** A token as a secondary signs it for a git fetch of one repository (its several requests). */
  const fetchToken = (repositoryUrl: string, secret = SECRET) =>
    geoAuthorization(secret, 'secondary-1', { method: '*', path: `${geoPathOf(new URL(repositoryUrl).pathname)}/`, prefix: true });

  describe('file events and transfers', () => {
    let project: any;
    const transfer = (type: string, id: number | string, authorization?: string | null) => {
      const url = `${site.url}/api/v4/geo/transfers/${type}/${id}`;
      const signed = authorization === undefined ? signedFor(url) : authorization;
      return request(url, { headers: signed ? { authorization: signed } : {} });
    };
    const fetchFile = async (type: string, id: number) => {
      const response = await transfer(type, id);
      const body = Buffer.from(await response.body.arrayBuffer());
      return { status: response.statusCode, headers: response.headers, body };
    };
    const form = (filename: string, content: Buffer) => {
      const data = new FormData();
      data.append('file', new Blob([new Uint8Array(content)]), filename);
      return data;
    };

    beforeAll(async () => {
      project = await createProject(site, { default_branch: 'master' }, owner.token);
    });

    it('appends attachment `created` with the upload, and streams it to a signed secondary', async () => {
      const content = Buffer.from('an attachment\n');
      const before = lastEventId();
      const uploaded = await site.api(`/projects/${project.id}/uploads`, { method: 'POST', form: form('notes.txt', content), as: owner.token });
      expect(uploaded.status).toBe(201);
      const row = site.site.db.prepare('SELECT * FROM uploads WHERE project_id = ?').get(project.id) as any;
      expect(blobEventsAfter(before)).toEqual([
        { type: 'attachment', action: 'created', id: row.id, project_id: project.id, path: `uploads/${project.id}/${row.secret}/notes.txt`, checksum: sha256(content), size: content.length },
      ]);
      const got = await fetchFile('attachment', row.id);
      expect(got).toMatchObject({ status: 200, body: content });
      expect(got.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'content-length': String(content.length), 'x-geo-sha256': sha256(content) });

      // Gone from disk (or never there): 404 with the code a secondary reads as missing on the primary.
      await rm(path.join(site.dataDir, 'uploads', String(project.id), row.secret, 'notes.txt'));
      const missing = await fetchFile('attachment', row.id);
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body.toString())).toEqual({ message: '404 Attachment Not Found', geo_code: 'FILE_NOT_FOUND' });
      expect(JSON.parse((await fetchFile('attachment', 999_999)).body.toString())).toEqual({ message: '404 Attachment Not Found', geo_code: 'FILE_NOT_FOUND' });
    });

    it('appends job artifact `created`, `deleted` + `created` on replace, `deleted` on delete, and streams the current one', async () => {
      const sha = (await site.api(`/projects/${project.id}/repository/commits`, {
        method: 'POST',
        body: { branch: 'master', commit_message: 'ci', actions: [{ action: 'create', file_path: 'ci.txt', content: 'ci' }] },
        as: owner.token,
      })).body.id as string;
      expect((await site.api(`/projects/${project.id}/statuses/${sha}`, { method: 'POST', body: { state: 'success', name: 'build' }, as: owner.token })).status).toBe(201);
      const job = (await site.api(`/projects/${project.id}/jobs`, { as: owner.token })).body[0];
      const url = `/projects/${project.id}/jobs/${job.id}/artifacts`;
      const artifactRow = () => site.site.db.prepare('SELECT * FROM ci_job_artifacts WHERE job_id = ?').get(job.id) as any;
      const first = Buffer.alloc(300_000, 7);

      let before = lastEventId();
      expect((await site.api(url, { method: 'POST', form: form('artifacts.zip', first), as: owner.token })).status).toBe(201);
      const firstRow = artifactRow();
      const firstPath = `artifacts/${project.id}/${job.id}/artifacts.zip`;
      expect(blobEventsAfter(before)).toEqual([
        { type: 'job_artifact', action: 'created', id: firstRow.id, project_id: project.id, path: firstPath, checksum: sha256(first), size: first.length },
      ]);
      const got = await fetchFile('job_artifact', firstRow.id);
      expect(got.status).toBe(200);
      expect(sha256(got.body)).toBe(sha256(first));
      expect(got.headers['x-geo-sha256']).toBe(sha256(first));

      before = lastEventId();
      const second = Buffer.from('second archive');
      expect((await site.api(url, { method: 'POST', form: form('other.zip', second), as: owner.token })).status).toBe(201);
      const secondRow = artifactRow();
      expect(blobEventsAfter(before)).toEqual([
        { type: 'job_artifact', action: 'deleted', id: firstRow.id, project_id: project.id, path: firstPath, checksum: null, size: null },
        { type: 'job_artifact', action: 'created', id: secondRow.id, project_id: project.id, path: `artifacts/${project.id}/${job.id}/other.zip`, checksum: sha256(second), size: second.length },
      ]);
      expect((await fetchFile('job_artifact', firstRow.id)).status).toBe(404);
      expect((await fetchFile('job_artifact', secondRow.id)).body).toEqual(second);

      before = lastEventId();
      expect((await site.api(url, { method: 'DELETE', as: owner.token })).status).toBe(204);
      expect(blobEventsAfter(before)).toEqual([
        { type: 'job_artifact', action: 'deleted', id: secondRow.id, project_id: project.id, path: `artifacts/${project.id}/${job.id}/other.zip`, checksum: null, size: null },
      ]);
      // A refused delete (nothing left) appends nothing.
      before = lastEventId();
      expect((await site.api(url, { method: 'DELETE', as: owner.token })).status).toBe(404);
      expect(blobEventsAfter(before)).toEqual([]);
    });

    it('appends lfs_object `created` once per object, shared by projects (no project id), and streams it by `lfs` and `lfs_object`', async () => {
      const content = Buffer.alloc(2 * 1024 * 1024 + 11, 'x');
      const oid = sha256(content);
      const basic = `Basic ${Buffer.from(`${owner.username}:${owner.token}`).toString('base64')}`;
      const put = (p: any) =>
        request(`${site.url}/${p.path_with_namespace}.git/gitlab-lfs/objects/${oid}/${content.length}`, {
          method: 'PUT',
          headers: { authorization: basic, 'content-type': 'application/octet-stream' },
          body: content,
        });
      let before = lastEventId();
      expect((await put(project)).statusCode).toBe(200);
      const row = site.site.db.prepare('SELECT * FROM lfs_objects WHERE oid = ?').get(oid) as any;
      const objectPath = `lfs-objects/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}`;
      expect(blobEventsAfter(before)).toEqual([{ type: 'lfs_object', action: 'created', id: row.id, project_id: null, path: objectPath, checksum: oid, size: content.length }]);

      // The same object uploaded to another project links it: no second event.
      const other = await createProject(site, {}, owner.token);
      before = lastEventId();
      expect((await put(other)).statusCode).toBe(200);
      expect(blobEventsAfter(before)).toEqual([]);

      for (const word of ['lfs', 'lfs_object']) {
        const got = await fetchFile(word, row.id);
        expect(got.status).toBe(200);
        expect(got.headers['content-length']).toBe(String(content.length));
        expect(got.headers['x-geo-sha256']).toBe(oid);
        expect(sha256(got.body)).toBe(oid);
      }
      await rm(path.join(site.dataDir, objectPath));
      expect(JSON.parse((await fetchFile('lfs', row.id)).body.toString())).toEqual({ message: '404 LFS Object Not Found', geo_code: 'FILE_NOT_FOUND' });
    });

    it('sends several files in one batch, in the order asked: each with its size and sha256, or the 404 its single transfer gets', async () => {
      const upload = async (name: string, content: Buffer) => {
        expect((await site.api(`/projects/${project.id}/uploads`, { method: 'POST', form: form(name, content), as: owner.token })).status).toBe(201);
        return site.site.db.prepare('SELECT id FROM uploads WHERE project_id = ? ORDER BY id DESC LIMIT 1').pluck().get(project.id) as number;
      };
      const small = Buffer.from('a small one\n');
      const none = Buffer.alloc(0);
      // Past one read: this part streams through a pipeline that leaves the response open.
      const large = randomBytes(1024 * 1024 + 5000);
      const ids = { small: await upload('small.txt', small), large: await upload('large.bin', large) };
      const batch = async (files: string, authorization?: string | null) => {
        const url = `${site.url}/api/v4/geo/transfers?files=${files}`;
        const signed = authorization === undefined ? signedFor(url) : authorization;
        const response = await request(url, { headers: signed ? { authorization: signed } : {} });
        return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
      };
      /** The parts as the format defines them, parsed here on their own: a JSON line, then `size` bytes. */
      const parts = (body: Buffer) => {
        const out: Array<{ header: any; sha256: string }> = [];
        for (let offset = 0; offset < body.length; ) {
          const newline = body.indexOf(10, offset);
          const header = JSON.parse(body.subarray(offset, newline).toString());
          offset = newline + 1 + (header.size ?? 0);
          out.push({ header, sha256: sha256(body.subarray(newline + 1, offset)) });
        }
        return out;
      };

      const got = await batch(`attachment:${ids.large},attachment:${ids.small},attachment:999999,lfs:999999`);
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toBe('application/vnd.geoforge.file-batch');
      expect(got.headers['content-length']).toBe(String(got.body.length));
      expect(parts(got.body)).toEqual([
        { header: { type: 'attachment', id: ids.large, size: large.length, sha256: sha256(large) }, sha256: sha256(large) },
        { header: { type: 'attachment', id: ids.small, size: small.length, sha256: sha256(small) }, sha256: sha256(small) },
        { header: { type: 'attachment', id: 999999, status: 404, message: '404 Attachment Not Found', geo_code: 'FILE_NOT_FOUND' }, sha256: sha256(none) },
        { header: { type: 'lfs', id: 999999, status: 404, message: '404 LFS Object Not Found', geo_code: 'FILE_NOT_FOUND' }, sha256: sha256(none) },
      ]);

      expect((await batch(`attachment:${ids.small}`, null)).status).toBe(401);
      const message = async (files: string) => {
        const answer = await batch(files);
        return { status: answer.status, message: JSON.parse(answer.body.toString()).message };
      };
      expect(await message('')).toEqual({ status: 400, message: 'files is empty' });
      expect((await request(`${site.url}/api/v4/geo/transfers`, { headers: { authorization: signedFor(`${site.url}/api/v4/geo/transfers`) } })).statusCode).toBe(400);
      expect(await message(`repository:${ids.small}`)).toEqual({ status: 400, message: expect.stringMatching(/^files is invalid: repository:\d+ is not <lfs\|lfs_object\|attachment\|job_artifact>:<id>$/) });
      expect(await message('attachment:abc')).toMatchObject({ status: 400 });
      expect(await message(Array.from({ length: 101 }, (_, i) => `attachment:${i + 1}`).join(','))).toEqual({ status: 400, message: 'files has more than 100 entries' });
    });

    it('answers only signed sites (401), and 400 for an unknown type or a malformed id', async () => {
      const upload = await site.api(`/projects/${project.id}/uploads`, { method: 'POST', form: form('signed.txt', Buffer.from('x')), as: owner.token });
      expect(upload.status).toBe(201);
      const id = site.site.db.prepare('SELECT max(id) FROM uploads').pluck().get() as number;
      const unauthorized = { message: '401 Unauthorized' };
      const statusAndBody = async (response: Awaited<ReturnType<typeof transfer>>) => ({ status: response.statusCode, body: await response.body.json() });
      expect(await statusAndBody(await transfer('attachment', id, null))).toEqual({ status: 401, body: unauthorized });
      expect(await statusAndBody(await transfer('attachment', id, signedFor(`${site.url}/api/v4/geo/transfers/attachment/${id}`, 'GET', 'another-secret-of-16-chars')))).toEqual({ status: 401, body: unauthorized });
      const expired = `${GEO_AUTH_SCHEME} ${signGeoToken(SECRET, 'secondary-1', { method: 'GET', path: `/transfers/attachment/${id}` }, Date.now() - 5 * 60_000)}`;
      expect(await statusAndBody(await transfer('attachment', id, expired))).toEqual({ status: 401, body: unauthorized });
      // A user's token is not a site's.
      expect((await request(`${site.url}/api/v4/geo/transfers/attachment/${id}`, { headers: { 'private-token': owner.token } })).statusCode).toBe(401);

      expect((await transfer('attachment', id)).statusCode).toBe(200);
      const badType = await transfer('repository', id);
      expect(badType.statusCode).toBe(400);
      expect(((await badType.body.json()) as any).message).toMatch(/^type does not have a valid value/);
      const badId = await transfer('attachment', 'abc');
      expect(badId.statusCode).toBe(400);
      expect(await badId.body.json()).toEqual({ message: 'id is invalid' });
    });
  });

  describe('git fetch for secondaries', () => {
    let project: any;
    const geoUrl = (type: 'repository' | 'wiki', id: number) => `${site.url}/api/v4/geo/git/${type}/${id}.git`;
    /** The token travels in the environment as http.extraHeader, so it never shows in a process list. */
    const geoEnv = (repositoryUrl: string, secret = SECRET) => ({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: ${fetchToken(repositoryUrl, secret)}`,
    });
    const fails = async (args: string[], env: Record<string, string> = {}) => {
      const error = await git(args, undefined, env).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(GitError);
      return (error as GitError).stderr;
    };

    beforeAll(async () => {
      project = await createProject(site, { default_branch: 'master' }, owner.token);
      const work = await newWorkTree();
      await pushFile(remoteUrl(site.url, project, owner), work, 'one.txt', '1\n');
      await pushFile(remoteUrl(site.url, project, owner), work, 'two.txt', '2\n', 'HEAD:refs/heads/feature');
      await pushFile(remoteUrl(site.url, project, owner, '.wiki.git'), await newWorkTree(), 'home.md', 'wiki\n');
    });

    it('serves `git clone --mirror` and `git fetch --prune` with the GL-Geo header from the environment; the mirror checksums the same', async () => {
      const mirror = path.join(scratch, `mirror-${project.id}.git`);
      await git(['clone', '--mirror', '--quiet', geoUrl('repository', project.id), mirror], undefined, geoEnv(geoUrl('repository', project.id)));
      expect(await refsChecksum(mirror)).toBe(stateOf(project.id).repository_checksum);

      await git(['--git-dir', repositoryPath(site.dataDir, project.id), 'update-ref', '-d', 'refs/heads/feature']);
      await pushFile(remoteUrl(site.url, project, owner), await newWorkTree(), 'three.txt', '3\n', 'HEAD:refs/heads/third');
      await git(['--git-dir', mirror, 'fetch', '--prune', '--quiet', geoUrl('repository', project.id), '+refs/*:refs/*'], undefined, geoEnv(geoUrl('repository', project.id)));
      expect(await refsChecksum(mirror)).toBe(await checksumOf(project.id));

      const wiki = path.join(scratch, `mirror-${project.id}.wiki.git`);
      await git(['clone', '--mirror', '--quiet', geoUrl('wiki', project.id), wiki], undefined, geoEnv(geoUrl('wiki', project.id)));
      expect(await refsChecksum(wiki)).toBe(stateOf(project.id).wiki_checksum);
    });

    it('refuses unsigned fetches (401), pushes (403), and answers 404 for what is not on disk', async () => {
      const target = path.join(scratch, 'refused.git');
      expect(await fails(['clone', '--mirror', '--quiet', geoUrl('repository', project.id), target])).toMatch(/could not read Username|Authentication failed|401/);
      expect(await fails(['clone', '--mirror', '--quiet', geoUrl('repository', project.id), target], geoEnv(geoUrl('repository', project.id), 'another-secret-of-16-chars'))).toMatch(/could not read Username|Authentication failed|401/);

      const work = await newWorkTree();
      await writeFile(path.join(work, 'x'), 'x');
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', 'x'], work);
      expect(await fails(['-C', work, 'push', geoUrl('repository', project.id), 'HEAD:refs/heads/geo'], geoEnv(geoUrl('repository', project.id)))).toMatch(/403/);
      const headers = { authorization: fetchToken(geoUrl('repository', project.id)) };
      const receive = await request(`${geoUrl('repository', project.id)}/info/refs?service=git-receive-pack`, { headers });
      expect(receive.statusCode).toBe(403);
      await receive.body.dump();
      const rpc = await request(`${geoUrl('repository', project.id)}/git-receive-pack`, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-git-receive-pack-request' }, body: '0000' });
      expect(rpc.statusCode).toBe(403);
      await rpc.body.dump();

      const noWiki = await createProject(site, {}, owner.token);
      for (const url of [geoUrl('wiki', noWiki.id), geoUrl('repository', 999_999)]) {
        const response = await request(`${url}/info/refs?service=git-upload-pack`, { headers: { authorization: fetchToken(url) } });
        expect(response.statusCode).toBe(404);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        await response.body.dump();
      }
      // Asking never creates the wiki, unlike a user's first fetch.
      expect(await refsChecksum(wikiRepositoryPath(site.dataDir, noWiki.id))).toBeNull();
    });

    it('answers HEAD as its file holds it (an empty repository\'s unborn branch included), to signed callers only', async () => {
      const empty = await createProject(site, { default_branch: 'main' }, owner.token);
      for (const [url, expected] of [
        [geoUrl('repository', project.id), 'ref: refs/heads/master\n'],
        [geoUrl('repository', empty.id), 'ref: refs/heads/main\n'],
        [geoUrl('wiki', project.id), 'ref: refs/heads/master\n'],
      ] as const) {
        const response = await request(`${url}/HEAD`, { headers: { authorization: signedFor(`${url}/HEAD`) } });
        expect(response.statusCode).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        expect(response.headers['cache-control']).toBe('no-cache, max-age=0, must-revalidate');
        expect(await response.body.text()).toBe(expected);
      }
      const unsigned = await request(`${geoUrl('repository', empty.id)}/HEAD`);
      expect(unsigned.statusCode).toBe(401);
      await unsigned.body.dump();
      for (const url of [geoUrl('wiki', empty.id), geoUrl('repository', 999_999)]) {
        const missing = await request(`${url}/HEAD`, { headers: { authorization: signedFor(`${url}/HEAD`) } });
        expect(missing.statusCode).toBe(404);
        await missing.body.dump();
      }
    });
  });
});
