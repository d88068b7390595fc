import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_SYNC_ENV } from '../helpers/geo-blobs.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { ROOT_TOKEN, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 17, item 1 on a secondary: the repository browsing API (trees, blobs, archives,
 * contributors, merge bases, file headers, blame, refs, comments and discussions on commits) reads
 * the secondary's own copies and database, and answers exactly what the primary answers.
 */
describe('geo: the repository browsing API reads the same on a secondary', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let home: string;
  let project: { id: number; path_with_namespace: string };
  const sha: Record<string, string> = {};

  /** A GET as root with the body as bytes and the headers. */
  const get = async (site: SiteProcess, suffix: string) => {
    const response = await request(`${site.url}/api/v4/projects/${project.id}/repository${suffix}`, { headers: { 'private-token': ROOT_TOKEN } });
    return { status: response.statusCode, headers: response.headers, body: Buffer.from(await response.body.arrayBuffer()) };
  };

  useTwoSites({ secondaryEnv: FAST_SYNC_ENV }, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'geoforge-browse-geo-'));
    const git = gitClient(home);
    const work = path.join(home, 'work');
    const created = await primary.api('/projects', { method: 'POST', body: { name: `browse-${Date.now()}`, visibility: 'private', default_branch: 'main' } });
    expect(created.status).toBe(201);
    project = created.body;
    await git(['init', '-q', '-b', 'main', work]);
    await writeFile(path.join(work, 'README.md'), '# hello\n');
    await git(['add', '.'], work);
    await git(['commit', '-q', '-m', 'first'], work);
    await git(['branch', 'feature'], work);
    await writeFile(path.join(work, 'README.md'), '# hello\nagain\n');
    await git(['commit', '-q', '-am', 'second'], work);
    sha.main = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    await git(['push', '-q', remoteUrl(primary.url, project, { username: 'root', token: ROOT_TOKEN }), 'main', 'feature'], work);
    const comment = await primary.api(`/projects/${project.id}/repository/commits/${sha.main}/comments`, { method: 'POST', body: { note: 'from the primary' } });
    expect(comment.status).toBe(201);
    // The secondary has the pushed history and the comment once both have replicated: until its copy
    // is current, its repository reads are the primary's (X-Geoforge-Node says which site answered).
    await waitFor(
      async () => {
        const [refs, comments] = await Promise.all([get(secondary, `/commits/${sha.main}/refs`), get(secondary, `/commits/${sha.main}/comments`)]);
        return refs.status === 200 && refs.headers['x-geoforge-node'] === 'secondary-1' && JSON.parse(refs.body.toString()).length === 1 && JSON.parse(comments.body.toString()).length === 1;
      },
      { timeoutMs: 30_000, message: 'the repository and the comment on the secondary' },
    );
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('answers every browsing read as the primary does, bytes and X-Gitlab-* headers included, from its own copy', async () => {
    const blob = JSON.parse((await get(primary, '/tree')).body.toString()).find((entry: any) => entry.name === 'README.md').id;
    const reads = [
      '/tree?recursive=true',
      `/blobs/${blob}`,
      `/blobs/${blob}/raw`,
      '/archive.zip',
      '/archive.tar.gz',
      '/archive.tar.bz2',
      '/contributors',
      '/merge_base?refs[]=main&refs[]=feature',
      '/compare?from=feature&to=main&straight=true',
      '/files/README.md?ref=main',
      '/files/README.md/blame?ref=main',
      '/commits?all=true',
      `/commits/${sha.main}/refs`,
      `/commits/${sha.main}/signature`,
      `/commits/${sha.main}/comments`,
      `/commits/${sha.main}/discussions`,
    ];
    for (const suffix of reads) {
      const [fromPrimary, fromSecondary] = await Promise.all([get(primary, suffix), get(secondary, suffix)]);
      expect(fromSecondary.status, suffix).toBe(fromPrimary.status);
      // Each site writes its own URL into web_url fields; everything else is byte for byte the same.
      const same = (body: Buffer, site: SiteProcess) => body.toString('latin1').replaceAll(site.url, 'SITE');
      expect(same(fromSecondary.body, secondary) === same(fromPrimary.body, primary), `${suffix}: ${fromSecondary.body.subarray(0, 200).toString()}`).toBe(true);
      expect(fromSecondary.headers['x-geoforge-node'], suffix).toBe('secondary-1');
      for (const name of ['content-type', 'content-disposition', 'x-gitlab-blob-id', 'x-gitlab-last-commit-id', 'x-gitlab-content-sha256', 'x-total']) {
        expect(fromSecondary.headers[name], `${suffix} ${name}`).toEqual(fromPrimary.headers[name]);
      }
    }
  });

  it('takes a comment on the secondary through the primary and reads it back there', async () => {
    const made = await secondary.api(`/projects/${project.id}/repository/commits/${sha.main}/comments`, { method: 'POST', body: { note: 'from the secondary' } });
    expect(made.status).toBe(201);
    expect(made.body.note).toBe('from the secondary');
    const listed = await secondary.api(`/projects/${project.id}/repository/commits/${sha.main}/comments`);
    expect(listed.body.map((note: any) => note.note)).toEqual(['from the primary', 'from the secondary']);
  });
});
