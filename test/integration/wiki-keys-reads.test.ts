import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { sshPublicKey } from '../helpers/keys.js';
import { expectReadsWriteNothing, seeder, stampCallers } from '../helpers/reads.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Every GET route of wikis, deploy keys, key lookups and personal access tokens (issue 17, items 3
 * and 5), read from the route table, answers without a 5xx and writes nothing that replicates (a
 * secondary serves these reads from its own copy). A wiki that was never written is read too: a
 * read must not create its repository. Group wikis (issue 26, item 3) alike.
 */
const FAMILIES = /\/(wikis|deploy_keys|personal_access_tokens|keys)\b/;

let site: TestSite;
let member: TestUser;
const params: Record<string, string> = {};

beforeAll(async () => {
  site = await startSite();
  member = await createUser(site);
  const project = await createProject(site, { visibility: 'private' });
  const untouched = await createProject(site, { visibility: 'private' });
  await addMember(site, 'projects', project.id, member, 40);
  await addMember(site, 'projects', untouched.id, member, 40);
  const group = await createGroup(site, { visibility: 'private' });
  const untouchedGroup = await createGroup(site, { visibility: 'private' });
  await addMember(site, 'groups', group.id, member, 40);
  await addMember(site, 'groups', untouchedGroup.id, member, 40);
  const post = seeder(site);
  const page = await post(`/projects/${project.id}/wikis`, { title: 'guide/Read me', content: 'text' });
  await post(`/groups/${group.id}/wikis`, { title: 'guide/Read me', content: 'text' });
  const deployKey = await post(`/projects/${project.id}/deploy_keys`, { title: 'ci', key: sshPublicKey() });
  const key = await post('/user/keys', { title: 'mine', key: sshPublicKey() }, member.token);
  const token = await post(`/users/${member.id}/personal_access_tokens`, { name: 'script', scopes: ['api'] });
  Object.assign(params, {
    projectId: String(project.id),
    untouchedId: String(untouched.id),
    groupId: String(group.id),
    untouchedGroupId: String(untouchedGroup.id),
    slug: encodeURIComponent(page.slug),
    key_id: String(deployKey.id),
    userKeyId: String(key.id),
    tokenId: String(token.id),
  });
  await stampCallers(site, member);
});
afterAll(() => site.stop());


/** A path's `:id` is the project's (or, for /groups, the group's) written wiki or untouched one. */
function fill(path: string, untouched: boolean): string {
  const projectId = untouched ? params.untouchedId! : params.projectId!;
  const groupId = untouched ? params.untouchedGroupId! : params.groupId!;
  return path.replace(/:(\w+)/g, (_, name: string) => {
    if (name === 'id') return path.startsWith('/keys') ? params.userKeyId! : path.startsWith('/personal_access_tokens') ? params.tokenId! : path.startsWith('/groups') ? groupId : projectId;
    return params[name]!;
  });
}

describe('GET routes of wikis, deploy keys, keys and personal access tokens', () => {
  const routes = apiRoutes('test', [], null).filter((route) => route.method === 'get' && FAMILIES.test(route.path) && !route.path.startsWith('/user'));

  it('are found in the route table', () => {
    expect(routes.map((route) => route.path).sort()).toEqual(
      [
        '/deploy_keys',
        '/groups/:id/wikis',
        '/groups/:id/wikis/:slug',
        '/keys',
        '/keys/:id',
        '/personal_access_tokens',
        '/personal_access_tokens/:id',
        '/projects/:id/deploy_keys',
        '/projects/:id/deploy_keys/:key_id',
        '/projects/:id/wikis',
        '/projects/:id/wikis/:slug',
      ].sort(),
    );
  });

  it('answer below 500 and write no replicated row, for an admin, a member and anonymous callers, on a written and an untouched wiki', async () => {
    const reads = routes.flatMap((route) => [false, true].map((untouched) => ({ path: route.path, url: fill(route.path, untouched) })));
    await expectReadsWriteNothing(site, member, reads, { adminOk: false });
    expect((await site.api(`/projects/${params.untouchedId}/wikis`)).body).toEqual([]);
    expect((await site.api(`/groups/${params.untouchedGroupId}/wikis`)).body).toEqual([]);
  });
});
