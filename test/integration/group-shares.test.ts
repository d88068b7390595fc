import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** POST/DELETE /groups/:id/share: members of the shared-with group reach the shared group's tree, capped at group_access. */
describe('group shares', () => {
  let site: TestSite;
  let owner: TestUser;
  let teamOwner: TestUser;
  let teammate: TestUser;
  let stranger: TestUser;
  let shared: TestGroup;
  let child: TestGroup;
  let team: TestGroup;
  let project: any;
  let childProject: any;

  beforeAll(async () => {
    site = await startSite();
    [owner, teamOwner, teammate, stranger] = [await createUser(site), await createUser(site), await createUser(site), await createUser(site)];
    shared = await createGroup(site, { visibility: 'private' }, owner.token);
    child = await createGroup(site, { parent_id: shared.id, visibility: 'private' }, owner.token);
    team = await createGroup(site, { visibility: 'private' }, teamOwner.token);
    project = await createProject(site, { namespace_id: shared.id }, owner.token);
    childProject = await createProject(site, { namespace_id: child.id }, owner.token);
    await addMember(site, 'groups', team.id, teammate, 40, teamOwner.token);
    // The group owner must see the team to share with it.
    await addMember(site, 'groups', team.id, owner, 10, teamOwner.token);
  });
  afterAll(() => site.stop());

  it('answers the shared group with shared_with_groups and gives the team capped access to the tree', async () => {
    expect((await site.api(`/projects/${childProject.id}`, { as: teammate.token })).status).toBe(404);
    const created = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 30, expires_at: '2999-01-01' }, as: owner.token });
    expect(created.status).toBe(201);
    expect(created.body.id).toBe(shared.id);
    expect(created.body.shared_with_groups).toEqual([
      { group_id: team.id, group_name: team.name, group_full_path: team.full_path, group_access_level: 30, expires_at: '2999-01-01' },
    ]);
    // A maintainer of the team gets developer (the cap) on the group, its subgroups and their projects.
    const viaProject = await site.api(`/projects/${childProject.id}`, { as: teammate.token });
    expect(viaProject.status).toBe(200);
    expect((await site.api(`/groups/${child.id}`, { as: teammate.token })).status).toBe(200);
    const pushable = await site.api('/projects?min_access_level=30', { as: teammate.token });
    expect(pushable.body.map((p: { id: number }) => p.id).sort()).toEqual([project.id, childProject.id].sort());
    expect((await site.api('/projects?min_access_level=40', { as: teammate.token })).body).toEqual([]);
    const groups = await site.api('/groups', { as: teammate.token });
    expect(groups.body.map((g: { id: number }) => g.id)).toEqual(expect.arrayContaining([shared.id, child.id]));
    // Developer access may not administer the shared group.
    expect((await site.api(`/groups/${shared.id}`, { method: 'PUT', body: { description: 'x' }, as: teammate.token })).status).toBe(403);
    expect((await site.api(`/projects/${project.id}/users`, { as: owner.token })).body.map((u: { id: number }) => u.id)).toContain(teammate.id);
  });

  it('shows shared_with_groups to callers who may see the shared-with group only', async () => {
    const detail = await site.api(`/groups/${shared.id}`);
    expect(detail.body.shared_with_groups).toHaveLength(1);
    const publicGroup = await createGroup(site, { visibility: 'public' }, owner.token);
    const share = await site.api(`/groups/${publicGroup.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 10 }, as: owner.token });
    expect(share.status).toBe(201);
    const anonymous = await site.api(`/groups/${publicGroup.id}`, { as: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.shared_with_groups).toEqual([]);
  });

  it('refuses a second share (409), a share with itself (409), bad parameters (400), strangers and non-owners', async () => {
    const again = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 20 }, as: owner.token });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Shared with group has already been taken' });
    const itself = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: shared.id, group_access: 20 }, as: owner.token });
    expect(itself.status).toBe(409);
    const badAccess = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 35 }, as: owner.token });
    expect(badAccess.status).toBe(400);
    expect(badAccess.body).toEqual({ message: 'group_access does not have a valid value' });
    const missing = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_access: 20 }, as: owner.token });
    expect(missing.body).toEqual({ message: 'group_id is missing' });
    const badDate = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 20, expires_at: 'soon' }, as: owner.token });
    expect(badDate.status).toBe(400);
    const anonymous = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 20 }, as: null });
    expect(anonymous.status).toBe(401);
    const hidden = await site.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 20 }, as: stranger.token });
    expect(hidden.status).toBe(404);
    const developer = await site.api(`/groups/${child.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 20 }, as: teammate.token });
    expect(developer.status).toBe(403);
    // A group the sharer cannot see is not found.
    const invisible = await createGroup(site, { visibility: 'private' }, stranger.token);
    const unseen = await site.api(`/groups/${child.id}/share`, { method: 'POST', body: { group_id: invisible.id, group_access: 20 }, as: owner.token });
    expect(unseen.status).toBe(404);
    expect(unseen.body).toEqual({ message: '404 Group Not Found' });
  });

  it('an expired share grants nothing', async () => {
    const other = await createGroup(site, { visibility: 'private' }, owner.token);
    const otherProject = await createProject(site, { namespace_id: other.id }, owner.token);
    const expired = await site.api(`/groups/${other.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 30, expires_at: '2000-01-01' }, as: owner.token });
    expect(expired.status).toBe(201);
    expect((await site.api(`/projects/${otherProject.id}`, { as: teammate.token })).status).toBe(404);
    expect((await site.api(`/groups/${other.id}`, { as: teammate.token })).status).toBe(404);
  });

  it('unshares (204) and the access goes; 404 Group Link when not shared, 400 for a bad id, 403 for non-owners', async () => {
    expect((await site.api(`/groups/${shared.id}/share/${team.id}`, { method: 'DELETE', as: teammate.token })).status).toBe(403);
    expect((await site.api(`/groups/${shared.id}/share/abc`, { method: 'DELETE', as: owner.token })).status).toBe(400);
    expect((await site.api(`/groups/${shared.id}/share/${team.id}`, { method: 'DELETE', as: null })).status).toBe(401);
    const removed = await site.api(`/groups/${shared.id}/share/${team.id}`, { method: 'DELETE', as: owner.token });
    expect(removed.status).toBe(204);
    const again = await site.api(`/groups/${shared.id}/share/${team.id}`, { method: 'DELETE', as: owner.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Group Link Not Found' });
    expect((await site.api(`/projects/${childProject.id}`, { as: teammate.token })).status).toBe(404);
    expect((await site.api(`/groups/${shared.id}`, { as: owner.token })).body.shared_with_groups).toEqual([]);
  });
});
