import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { expectReadsWriteNothing, seeder, stampCallers } from '../helpers/reads.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Every GET route of the settings (issue 17, item 6: badges, notification settings, user status,
 * group hooks, and the system hooks of issue 26), read from the route table itself, answers without a 5xx and writes nothing that
 * replicates: a secondary serves these reads from its own copy, and the defaults of a notification
 * setting are read without a row (DESIGN, "No writes on reads").
 */
const SETTINGS = /\/(badges|notification_settings|status|hooks)\b/;

let site: TestSite;
let member: TestUser;
const params: Record<string, string> = {};

beforeAll(async () => {
  site = await startSite();
  member = await createUser(site);
  const group = await createGroup(site, { visibility: 'private' });
  const project = await createProject(site, { namespace_id: group.id, visibility: 'private', initialize_with_readme: true });
  await addMember(site, 'projects', project.id, member, 30);
  const post = seeder(site);
  const badge = await post(`/projects/${project.id}/badges`, { link_url: 'https://e.test/%{project_path}', image_url: 'https://e.test/%{commit_sha}.svg' });
  const groupBadge = await post(`/groups/${group.id}/badges`, { link_url: 'https://e.test/%{project_id}', image_url: 'https://e.test/g.svg' });
  const projectHook = await post(`/projects/${project.id}/hooks`, { url: 'https://hooks.example.com/p' });
  const groupHook = await post(`/groups/${group.id}/hooks`, { url: 'https://hooks.example.com/g' });
  const systemHook = await post('/hooks', { url: 'https://hooks.example.com/s' });
  expect((await site.api('/user/status', { method: 'PUT', as: member.token, body: { emoji: 'coffee', message: 'Reading' } })).status).toBe(200);
  Object.assign(params, {
    projectId: String(project.id),
    groupId: String(group.id),
    badge_id: String(badge.id),
    group_badge_id: String(groupBadge.id),
    hook_id: String(projectHook.id),
    group_hook_id: String(groupHook.id),
    system_hook_id: String(systemHook.id),
  });
  await stampCallers(site, member);
});
afterAll(() => site.stop());


/** The route's path with its parameters filled from the seeded project, group and member. */
function fill(path: string): string {
  const onGroup = path.startsWith('/groups/');
  const value = (name: string) => {
    if (name === 'id') return onGroup ? params.groupId! : params.projectId!;
    if (name === 'user_id') return member.username;
    if (onGroup && (name === 'badge_id' || name === 'hook_id')) return params[`group_${name}`]!;
    if (path.startsWith('/hooks/')) return params.system_hook_id!;
    return params[name]!;
  };
  const filled = path.replace(/:(\w+)/g, (_, name: string) => value(name));
  return path.endsWith('/render') ? `${filled}?link_url=https://e.test/%25%7Bproject_path%7D&image_url=https://e.test/i.svg` : filled;
}

describe('GET routes of the settings', () => {
  const routes = apiRoutes('test', [], null).filter((route) => route.method === 'get' && SETTINGS.test(route.path));

  it('are found in the route table', () => {
    expect(routes.map((route) => route.path)).toEqual(
      expect.arrayContaining([
        '/projects/:id/badges',
        '/projects/:id/badges/render',
        '/groups/:id/badges/:badge_id',
        '/notification_settings',
        '/projects/:id/notification_settings',
        '/groups/:id/notification_settings',
        '/user/status',
        '/users/:user_id/status',
        '/groups/:id/hooks',
        '/groups/:id/hooks/:hook_id',
        '/hooks/:hook_id',
      ]),
    );
  });

  it('answer below 500 and write no replicated row, for an admin, a member and anonymous callers', async () => {
    await expectReadsWriteNothing(site, member, routes.map((route) => ({ path: route.path, url: fill(route.path) })), { adminOk: true });
    expect(site.site.db.prepare('SELECT count(*) FROM notification_settings').pluck().get()).toBe(0);
  });
});
