import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { runGit } from '../../src/git/cli.js';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { eventLogHead, replicatedSince, startSite, type TestSite } from '../helpers/site.js';

/**
 * Every GET route of the repository API (tree, blobs, archives, files, blame, commits, refs,
 * signatures, comments, discussions, compare, contributors, merge base), read from the route table
 * itself, answers without a 5xx and writes nothing that replicates: a secondary serves these reads
 * from its own copy (DESIGN, "No writes on reads").
 */
let site: TestSite;
let scratch: string;
let member: TestUser;
const params: Record<string, string> = {};
/** Query strings the routes need to answer 200 for an admin. */
const QUERIES: Record<string, string> = {
  '/compare': '?from=feature&to=main',
  '/merge_base': '?refs[]=main&refs[]=feature',
  '/files/:file_path': '?ref=main',
  '/files/:file_path/blame': '?ref=main',
};

beforeAll(async () => {
  site = await startSite();
  scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-repo-reads-'));
  member = await createUser(site);
  const owner = await createUser(site);
  const project = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
  await addMember(site, 'projects', project.id, member, 20, owner.token);
  const work = path.join(scratch, 'work');
  const git = (args: string[]) => gitClient(scratch)(args, work);
  await runGit(['init', '--quiet', '-b', 'main', work]);
  await writeFile(path.join(work, 'README.md'), '# read me\n');
  await git(['add', '.']);
  await git(['commit', '--quiet', '-m', 'first']);
  await git(['branch', 'feature']);
  await writeFile(path.join(work, 'README.md'), '# read me\nagain\n');
  await git(['commit', '--quiet', '-am', 'second']);
  await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'main', 'feature']);
  const sha = (await git(['rev-parse', 'main'])).stdout.trim();
  const blob = (await git(['rev-parse', 'main:README.md'])).stdout.trim();
  const comment = await site.api(`/projects/${project.id}/repository/commits/${sha}/comments`, { method: 'POST', body: { note: 'a comment' } });
  expect(comment.status).toBe(201);
  const thread = await site.api(`/projects/${project.id}/repository/commits/${sha}/discussions`, { method: 'POST', body: { body: 'a thread' } });
  expect(thread.status).toBe(201);
  Object.assign(params, { id: String(project.id), branch: 'main', sha, blob, file_path: 'README.md', discussion_id: thread.body.id, note_id: String(thread.body.notes[0].id) });
  // The callers' own once-a-day activity stamps are written by their first request, not by these reads.
  for (const as of [undefined, member.token]) await site.api('/user', { as });
});
afterAll(async () => {
  await site.stop();
  await rm(scratch, { recursive: true, force: true });
});


/** The route's path with its parameters filled from the seeded project, and the query it needs. */
function fill(routePath: string): string {
  const query = Object.entries(QUERIES).find(([suffix]) => routePath.endsWith(suffix))?.[1] ?? '';
  const filled = routePath
    .replace('{.:format}', '.zip')
    .replace('/blobs/:sha', '/blobs/:blob')
    .replace(/:(\w+)/g, (_, name: string) => params[name]!);
  return `${filled}${query}`;
}

const known = (routePath: string) => [...routePath.replace('/blobs/:sha', '/blobs/:blob').matchAll(/:(\w+)/g)].every(([, name]) => name! in params);

describe('GET routes of the repository', () => {
  const routes = apiRoutes('test', [], null).filter((route) => route.method === 'get' && route.path.startsWith('/projects/:id/repository/'));

  it('are found in the route table', () => {
    expect(routes.length).toBeGreaterThan(20);
  });

  it('answer below 500 and write no replicated row, for an admin, a member and anonymous callers', async () => {
    const before = eventLogHead(site);
    for (const route of routes) {
      for (const as of [undefined, member.token, null]) {
        const response = await site.api(fill(route.path), { as });
        expect(response.status, `${route.path} as ${as === null ? 'anonymous' : as ? 'member' : 'admin'}: ${response.text.slice(0, 200)}`).toBeLessThan(500);
        // A route whose parameters this file does not seed (a family added later) only has to stay below 500.
        // The seeded commit is unsigned: its signature is GitLab's 404 `Signature Not Found`.
        const expected = route.path.endsWith('/signature') ? 404 : 200;
        if (as === undefined && known(route.path)) expect(response.status, `${fill(route.path)}: ${response.text.slice(0, 200)}`).toBe(expected);
      }
    }
    expect(replicatedSince(site, before)).toEqual([]);
  });
});
