import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';

const run = promisify(execFile);

/** GET /projects/:id/snapshot (project_snapshots.rb): a tar of the bare repository, or of the wiki's; admins only. */
describe('project snapshots', () => {
  let site: TestSite;
  let scratch: string;
  let maintainer: TestUser;
  let project: any;

  const download = (query: string, token: string | null = ROOT_TOKEN) =>
    request(`${site.url}/api/v4/projects/${project.id}/snapshot${query}`, { headers: token ? { 'private-token': token } : {} });

  /** Unpacks a snapshot and asks git what the repository in it holds. */
  async function unpacked(body: Buffer, name: string): Promise<string> {
    const dir = path.join(scratch, name);
    await run('mkdir', ['-p', dir]);
    await writeFile(`${dir}.tar`, body);
    await run('tar', ['-xf', `${dir}.tar`, '-C', dir]);
    return dir;
  }

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-snapshot-'));
    maintainer = await createUser(site);
    project = await createProject(site, { visibility: 'private', initialize_with_readme: true });
    await addMember(site, 'projects', project.id, maintainer, 40);
    const page = await site.api(`/projects/${project.id}/wikis`, { method: 'POST', body: { title: 'home', content: 'snapshot me' } });
    expect(page.status).toBe(201);
  });

  afterAll(async () => {
    await site?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('answers an admin with a tar of the repository that git reads, without its config or hooks', async () => {
    const response = await download('');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-tar');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="${project.path}.git.tar"`);
    const dir = await unpacked(Buffer.from(await response.body.arrayBuffer()), 'repository');
    const log = await run('git', ['--git-dir', dir, 'log', '--format=%s', 'master']);
    expect(log.stdout.trim()).toBe('Initial commit');
    expect((await run('git', ['--git-dir', dir, 'show', 'master:README.md'])).stdout).toContain(project.name);
    const entries = (await run('tar', ['-tf', `${dir}.tar`])).stdout.split('\n');
    expect(entries.some((entry) => entry.startsWith('config') || entry.startsWith('hooks'))).toBe(false);
  });

  it('answers the wiki repository with wiki=true', async () => {
    const response = await download('?wiki=true');
    expect(response.statusCode).toBe(200);
    const dir = await unpacked(Buffer.from(await response.body.arrayBuffer()), 'wiki');
    const files = await run('git', ['--git-dir', dir, 'ls-tree', '--name-only', 'HEAD']);
    expect(files.stdout).toContain('home.md');
  });

  it('refuses anonymous callers (401), non-admins, maintainers included (403), a bad wiki flag (400) and an unknown project (404)', async () => {
    const anonymous = await download('', null);
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
    const member = await download('', maintainer.token);
    expect(member.statusCode).toBe(403);
    await member.body.dump();
    const bad = await download('?wiki=sometimes');
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.json()).toEqual({ message: 'wiki is invalid' });
    const unknown = await request(`${site.url}/api/v4/projects/999999/snapshot`, { headers: { 'private-token': ROOT_TOKEN } });
    expect(unknown.statusCode).toBe(404);
    expect(await unknown.body.json()).toEqual({ message: '404 Project Not Found' });
  });
});
