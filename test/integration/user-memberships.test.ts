import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** GET /users/:user_id/memberships (admin): a user's direct group and project memberships. */
describe('user memberships', () => {
  let site: TestSite;
  let user: TestUser;
  let group: any;
  let project: any;

  beforeAll(async () => {
    site = await startSite();
    user = await createUser(site);
    group = await createGroup(site);
    project = await createProject(site);
    await addMember(site, 'groups', group.id, user, 30);
    await addMember(site, 'projects', project.id, user, 20);
  });
  afterAll(() => site.stop());

  it('lists both kinds, oldest first, filters by type and pages', async () => {
    const all = await site.api(`/users/${user.id}/memberships`);
    expect(all.status).toBe(200);
    expect(all.body).toEqual([
      { source_id: group.id, source_name: group.name, source_type: 'Namespace', access_level: 30 },
      { source_id: project.id, source_name: project.name, source_type: 'Project', access_level: 20 },
    ]);
    expect(all.headers['x-total']).toBe('2');
    expect((await site.api(`/users/${user.id}/memberships?type=Project`)).body).toEqual([all.body[1]]);
    expect((await site.api(`/users/${user.id}/memberships?type=Namespace`)).body).toEqual([all.body[0]]);
    const paged = await site.api(`/users/${user.id}/memberships?per_page=1&page=2`);
    expect(paged.body).toEqual([all.body[1]]);
    expect(paged.headers['x-total-pages']).toBe('2');
  });

  it('answers 400 for a bad type or id, 401 anonymous, 403 to non-admins, 404 for a missing user', async () => {
    const bad = await site.api(`/users/${user.id}/memberships?type=Group`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'type does not have a valid value' });
    expect((await site.api('/users/abc/memberships')).status).toBe(400);
    expect((await site.api(`/users/${user.id}/memberships`, { as: null })).status).toBe(401);
    expect((await site.api(`/users/${user.id}/memberships`, { as: user.token })).status).toBe(403);
    const missing = await site.api('/users/999999/memberships');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
  });
});
