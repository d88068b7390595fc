import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const idsOf = (body: { id: number }[]) => body.map((project) => project.id).sort((a, b) => a - b);

/** GitLab 17's project-list filters on GET /projects, /groups/:id/projects and /users/:id/projects. */
describe('project list filters', () => {
  let site: TestSite;
  let bot: TestUser;
  let owner: TestUser;
  let group: TestGroup;
  let subgroup: TestGroup;
  let pushable: any;
  let readable: any;
  let inSubgroup: any;
  let sharedIn: any;
  let other: TestGroup;

  beforeAll(async () => {
    site = await startSite();
    [bot, owner] = [await createUser(site), await createUser(site)];
    group = await createGroup(site, { visibility: 'public' }, owner.token);
    subgroup = await createGroup(site, { parent_id: group.id, visibility: 'public' }, owner.token);
    other = await createGroup(site, { visibility: 'private' }, owner.token);
    pushable = await createProject(site, { name: 'pushable', namespace_id: group.id, visibility: 'public' }, owner.token);
    readable = await createProject(site, { name: 'readable', namespace_id: group.id, visibility: 'public', issues_enabled: false }, owner.token);
    inSubgroup = await createProject(site, { name: 'deep', namespace_id: subgroup.id, visibility: 'public' }, owner.token);
    sharedIn = await createProject(site, { name: 'elsewhere', namespace_id: other.id }, owner.token);
    await addMember(site, 'projects', pushable.id, bot, 30, owner.token);
    await addMember(site, 'projects', readable.id, bot, 20, owner.token);
    const share = await site.api(`/projects/${sharedIn.id}/share`, { method: 'POST', body: { group_id: group.id, group_access: 30 }, as: owner.token });
    expect(share.status).toBe(201);
  });
  afterAll(() => site.stop());

  it('min_access_level lists only the projects the caller has at least that access to, paged in SQL', async () => {
    const developer = await site.api('/projects?min_access_level=30', { as: bot.token });
    expect(developer.status).toBe(200);
    expect(idsOf(developer.body)).toEqual([pushable.id]);
    expect(developer.headers['x-total']).toBe('1');
    const reporter = await site.api('/projects?min_access_level=20&per_page=1', { as: bot.token });
    expect(reporter.headers['x-total']).toBe('2');
    expect(reporter.headers['x-total-pages']).toBe('2');
    expect(reporter.body).toHaveLength(1);
    const owners = await site.api('/projects?min_access_level=50', { as: bot.token });
    expect(owners.body).toEqual([]);
  });

  it('min_access_level counts group membership and is capped by a share', async () => {
    const member = await createUser(site);
    await addMember(site, 'groups', group.id, member, 40, owner.token);
    const maintainer = await site.api(`/groups/${group.id}/projects?min_access_level=40&include_subgroups=true`, { as: member.token });
    // The project shared with the group grants developer (30) only.
    expect(idsOf(maintainer.body)).toEqual([pushable.id, readable.id, inSubgroup.id]);
    const developer = await site.api('/projects?min_access_level=30', { as: member.token });
    expect(idsOf(developer.body)).toEqual([pushable.id, readable.id, inSubgroup.id, sharedIn.id]);
  });

  it('min_access_level is ignored for anonymous callers, as GitLab`s finder does, and validated', async () => {
    const anonymous = await site.api('/projects?min_access_level=30', { as: null });
    expect(anonymous.status).toBe(200);
    expect(idsOf(anonymous.body)).toEqual([pushable.id, readable.id, inSubgroup.id]);
    const bad = await site.api('/projects?min_access_level=35', { as: bot.token });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: 'min_access_level does not have a valid value' });
    const text = await site.api(`/groups/${group.id}/projects?min_access_level=dev`, { as: bot.token });
    expect(text.status).toBe(400);
  });

  it('with_issues_enabled, id_after and id_before narrow the list', async () => {
    const issues = await site.api(`/groups/${group.id}/projects?with_issues_enabled=true`, { as: bot.token });
    expect(idsOf(issues.body)).not.toContain(readable.id);
    expect(idsOf(issues.body)).toContain(pushable.id);
    const range = await site.api(`/projects?id_after=${pushable.id}&id_before=${inSubgroup.id}`, { as: bot.token });
    expect(idsOf(range.body)).toEqual([readable.id]);
    const bad = await site.api('/projects?id_after=x', { as: bot.token });
    expect(bad.status).toBe(400);
  });

  it('last_activity_after/_before and updated_after/_before bound by time; updated_* needs the updated_at order', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const past = '2000-01-01T00:00:00Z';
    expect((await site.api(`/projects?last_activity_after=${future}`, { as: bot.token })).body).toEqual([]);
    expect(idsOf((await site.api(`/projects?last_activity_after=${past}&membership=true`, { as: bot.token })).body)).toEqual([pushable.id, readable.id]);
    expect((await site.api(`/projects?last_activity_before=${past}`, { as: bot.token })).body).toEqual([]);
    expect((await site.api(`/projects?updated_before=${future}&order_by=updated_at&membership=true`, { as: bot.token })).body).toHaveLength(2);
    const unpaired = await site.api(`/projects?updated_after=${past}&order_by=name`, { as: bot.token });
    expect(unpaired.status).toBe(400);
    expect(unpaired.body).toEqual({ message: '400 Bad request - `updated_at` filter and `updated_at` sorting must be paired' });
    const bad = await site.api('/projects?last_activity_after=yesterday', { as: bot.token });
    expect(bad.status).toBe(400);
  });

  it('group projects include shared projects by default, subgroups on request', async () => {
    const member = await createUser(site);
    await addMember(site, 'groups', group.id, member, 30, owner.token);
    const plain = await site.api(`/groups/${group.id}/projects`, { as: member.token });
    expect(idsOf(plain.body)).toEqual([pushable.id, readable.id, sharedIn.id]);
    const own = await site.api(`/groups/${group.id}/projects?with_shared=false&include_subgroups=true`, { as: member.token });
    expect(idsOf(own.body)).toEqual([pushable.id, readable.id, inSubgroup.id]);
    // A stranger sees the public ones only: the shared project is private.
    const stranger = await site.api(`/groups/${group.id}/projects`, { as: bot.token });
    expect(idsOf(stranger.body)).toEqual([pushable.id, readable.id]);
  });

  it('search_namespaces matches the namespace path; active and star_count order; repository_storage for admins only', async () => {
    const plain = await site.api(`/projects?search=${subgroup.path}`, { as: bot.token });
    expect(plain.body).toEqual([]);
    const withNamespaces = await site.api(`/projects?search=${subgroup.path}&search_namespaces=true`, { as: bot.token });
    expect(idsOf(withNamespaces.body)).toEqual([inSubgroup.id]);
    expect((await site.api(`/projects/${readable.id}/star`, { method: 'POST', as: bot.token })).status).toBe(201);
    const starred = await site.api(`/groups/${group.id}/projects?order_by=star_count&with_shared=false`, { as: bot.token });
    expect(starred.body[0].id).toBe(readable.id);
    expect((await site.api(`/projects/${pushable.id}/archive`, { method: 'POST', as: owner.token })).status).toBe(201);
    const active = await site.api(`/groups/${group.id}/projects?active=true`, { as: owner.token });
    expect(idsOf(active.body)).not.toContain(pushable.id);
    const inactive = await site.api(`/groups/${group.id}/projects?active=false`, { as: owner.token });
    expect(idsOf(inactive.body)).toEqual([pushable.id]);
    expect((await site.api(`/projects/${pushable.id}/unarchive`, { method: 'POST', as: owner.token })).status).toBe(201);
    const elsewhere = await site.api(`/groups/${group.id}/projects?repository_storage=elsewhere`);
    expect(elsewhere.body).toEqual([]);
    const ignored = await site.api(`/groups/${group.id}/projects?repository_storage=elsewhere&with_shared=false`, { as: bot.token });
    expect(idsOf(ignored.body)).toEqual([pushable.id, readable.id]);
  });

  it('imported needs a signed-in caller and lists their imports only; the user list takes the filters too', async () => {
    expect((await site.api('/projects?imported=true', { as: owner.token })).body).toEqual([]);
    expect((await site.api('/projects?imported=true', { as: null })).body).toEqual([]);
    const mine = await createProject(site, { name: 'personal', visibility: 'public' }, bot.token);
    const listed = await site.api(`/users/${bot.id}/projects?min_access_level=50&id_after=${mine.id - 1}`, { as: bot.token });
    expect(idsOf(listed.body)).toEqual([mine.id]);
    const missing = await site.api('/users/999999/projects?min_access_level=30', { as: bot.token });
    expect(missing.status).toBe(404);
  });
});
