import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { expectReadsWriteNothing, seeder, stampCallers } from '../helpers/reads.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Every GET route of branches, tags, protected refs and the moving family (issue 17, items 2 and
 * 4), read from the route table itself, answers without a 5xx and writes nothing that replicates:
 * a secondary serves these reads from its own copy (DESIGN, "No writes on reads").
 */
const REFS = /\/(protected_branches|protected_tags|repository\/(tags|branches)|descendant_groups|languages|storage|exists)\b|^\/projects\/:id\/groups$/;

let site: TestSite;
let member: TestUser;
const params: Record<string, string> = {};

beforeAll(async () => {
  site = await startSite();
  member = await createUser(site);
  const group = await createGroup(site, { visibility: 'private' });
  await createGroup(site, { parent_id: group.id });
  const project = await createProject(site, { namespace_id: group.id, visibility: 'private', initialize_with_readme: true });
  await addMember(site, 'projects', project.id, member, 30);
  const post = seeder(site);
  await post(`/projects/${project.id}/repository/tags`, { tag_name: 'v1', ref: 'master', release_description: 'notes' });
  await post(`/projects/${project.id}/protected_tags`, { name: 'v*' });
  Object.assign(params, { projectId: String(project.id), groupId: String(group.id), branch: 'master', tag_name: 'v1', groupPath: group.path });
  await stampCallers(site, member);
});
afterAll(() => site.stop());


function fill(path: string): string {
  if (path.startsWith('/namespaces/')) return path.replace(':id', params.groupPath!);
  const id = path.startsWith('/groups/') ? params.groupId : params.projectId;
  return path.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'id') return id!;
    if (name === 'name') return encodeURIComponent(path.includes('protected_tags') ? 'v*' : 'master');
    return params[name]!;
  });
}

describe('GET routes of branches, tags, protected refs and transfers', () => {
  const routes = apiRoutes('test', [], null).filter((route) => route.method === 'get' && REFS.test(route.path));

  it('are found in the route table', () => {
    expect(routes.map((route) => route.path)).toEqual(
      expect.arrayContaining(['/projects/:id/protected_branches/:name', '/projects/:id/repository/tags/:tag_name', '/projects/:id/languages', '/namespaces/:id/exists']),
    );
  });

  it('answer below 500 and write no replicated row, for an admin, a member and anonymous callers', async () => {
    await expectReadsWriteNothing(site, member, routes.map((route) => ({ path: route.path, url: fill(route.path) })), { adminOk: true });
  });
});
