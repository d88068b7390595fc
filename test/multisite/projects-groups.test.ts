import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createdOn, readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * GitLab 17's project, group and user additions across sites: the new list filters, group shares
 * (shared_with_groups, access through them) and bans read the same on the secondary; a share and a
 * ban sent to the secondary are forwarded and land on the primary.
 */
describe('multi-site projects, groups and users', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (path: string, as?: string | null, status = 200) => readsTheSame(primary, secondary, path, status, { as });

  async function newUser(prefix: string) {
    const suffix = randomUUID().slice(0, 8);
    const user = await createdOn(primary, '/users', { username: `${prefix}${suffix}`, email: `${prefix}${suffix}@example.com`, name: prefix, password: 'password123' });
    const token = await createdOn(primary, `/users/${user.id}/impersonation_tokens`, { name: prefix, scopes: ['api'] });
    return { id: user.id as number, username: user.username as string, token: token.token as string };
  }

  it('a group share written through the secondary lands on the primary; shares, filters and access read the same', async () => {
    const suffix = randomUUID().slice(0, 8);
    const shared = await createdOn(primary, '/groups', { name: `shared-${suffix}`, path: `shared-${suffix}` });
    const team = await createdOn(primary, '/groups', { name: `team-${suffix}`, path: `team-${suffix}` });
    const project = await createdOn(primary, '/projects', { name: `inside-${suffix}`, namespace_id: shared.id });
    const member = await newUser('teammate');
    await createdOn(primary, `/groups/${team.id}/members`, { user_id: member.id, access_level: 40 });

    const share = await secondary.api(`/groups/${shared.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 30 } });
    expect(share.status, share.text).toBe(201);
    expect(share.body.shared_with_groups).toEqual([expect.objectContaining({ group_id: team.id, group_access_level: 30 })]);
    const onPrimary = await primary.api(`/groups/${shared.id}`);
    expect(onPrimary.body.shared_with_groups).toEqual(share.body.shared_with_groups);

    const detail = await sameOnBoth(`/groups/${shared.id}`);
    expect(detail.body.shared_with_groups[0].group_full_path).toBe(team.full_path);
    const pushable = await sameOnBoth('/projects?min_access_level=30', member.token);
    expect(pushable.body.map((p: { id: number }) => p.id)).toEqual([project.id]);
    await sameOnBoth('/projects?min_access_level=40', member.token);
    await sameOnBoth(`/groups/${shared.id}/projects?include_subgroups=true&with_shared=false&last_activity_after=2000-01-01T00:00:00Z`, member.token);
    await sameOnBoth(`/projects?search=${shared.path}&search_namespaces=true&order_by=star_count`);

    const unshared = await secondary.api(`/groups/${shared.id}/share/${team.id}`, { method: 'DELETE' });
    expect(unshared.status, unshared.text).toBe(204);
    expect((await primary.api(`/groups/${shared.id}`)).body.shared_with_groups).toEqual([]);
    await waitFor(async () => (await secondary.api('/projects?min_access_level=30', { as: member.token })).text === '[]', { timeoutMs: 30_000, message: 'unshare replicated' });
  });

  it('a ban through the secondary lands on the primary: the user reads banned on both and cannot use a token on either', async () => {
    const target = await newUser('banned');
    const banned = await secondary.api(`/users/${target.id}/ban`, { method: 'POST' });
    expect(banned.status, banned.text).toBe(201);
    expect((await primary.api(`/users/${target.id}`)).body.state).toBe('banned');
    const user = await sameOnBoth(`/users/${target.id}`);
    expect(user.body.state).toBe('banned');
    await sameOnBoth(`/users?username=${target.username}`);
    expect((await primary.api('/user', { as: target.token })).status).toBe(401);
    expect((await secondary.api('/user', { as: target.token })).status).toBe(401);
    const refused = await secondary.api(`/users/${target.id}/ban`, { method: 'POST' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'You cannot ban banned users.' });
    expect((await secondary.api(`/users/${target.id}/unban`, { method: 'POST' })).status).toBe(201);
    await waitFor(async () => (await secondary.api('/user', { as: target.token })).status === 200, { timeoutMs: 30_000, message: 'unban replicated' });
  });
});
