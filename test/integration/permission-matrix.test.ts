import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import { createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { ROOT_TOKEN, startSite, type ApiResponse, type TestSite } from '../helpers/site.js';

/*
 * The permission matrix: who may do what to projects and groups of each visibility, and the exact
 * status GitLab 10.x answers (GITLAB-NOTES 1.2, 1.4, 1.5, 2.1, 2.2). The expected tables below are
 * written out by hand, on purpose not derived from src/services/permissions.ts, so that they state
 * the rules independently of the code under test:
 *
 *   - anonymous writes (and every members/hooks route, which use authenticate!) -> 401, before any lookup;
 *   - a resource the caller cannot see -> 404 (private to non-members, internal to anonymous callers);
 *   - visible but not permitted -> 403;
 *   - success -> 200 (GET, PUT), 201 (every POST, action routes included), 202 (DELETE project, DELETE group).
 *
 * Project abilities (10.x ProjectPolicy): read guest+; update, share, hooks, members write
 * master(40)+; delete and archive owner (the namespace owner) and admins.
 * Group abilities (10.x GroupPolicy): read any member; update, delete, members write owner(50)+admin.
 *
 * Personal projects get memberships on the project (owner: the namespace owner); a second table puts
 * the project in a group and the memberships on the group. Every mutating cell acts on a resource of
 * its own, so cells never affect each other.
 */

const ACTORS = ['anonymous', 'nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type ActorName = (typeof ACTORS)[number];
const VISIBILITIES = ['private', 'internal', 'public'] as const;
type Visibility = (typeof VISIBILITIES)[number];
type Row = readonly [number, number, number, number, number, number, number, number];

const PROJECT_ACTIONS = ['read', 'update', 'delete', 'archive', 'share', 'hooks', 'hooks_list', 'members_read', 'members_write'] as const;
type ProjectAction = (typeof PROJECT_ACTIONS)[number];
const GROUP_ACTIONS = ['read', 'update', 'delete', 'members_read', 'members_write'] as const;
type GroupAction = (typeof GROUP_ACTIONS)[number];

// prettier-ignore
const PROJECT_EXPECTED: Record<Visibility, Record<ProjectAction, Row>> = {
  //                  anon nonm guest rep  dev  maint owner admin
  private: {
    read:          [404, 404, 200, 200, 200, 200, 200, 200],
    update:        [401, 404, 403, 403, 403, 200, 200, 200],
    delete:        [401, 404, 403, 403, 403, 403, 202, 202],
    archive:       [401, 404, 403, 403, 403, 403, 201, 201],
    share:         [401, 404, 403, 403, 403, 201, 201, 201],
    hooks:         [401, 404, 403, 403, 403, 201, 201, 201],
    hooks_list:    [401, 404, 403, 403, 403, 200, 200, 200],
    members_read:  [401, 404, 200, 200, 200, 200, 200, 200],
    members_write: [401, 404, 403, 403, 403, 201, 201, 201],
  },
  internal: {
    read:          [404, 200, 200, 200, 200, 200, 200, 200],
    update:        [401, 403, 403, 403, 403, 200, 200, 200],
    delete:        [401, 403, 403, 403, 403, 403, 202, 202],
    archive:       [401, 403, 403, 403, 403, 403, 201, 201],
    share:         [401, 403, 403, 403, 403, 201, 201, 201],
    hooks:         [401, 403, 403, 403, 403, 201, 201, 201],
    hooks_list:    [401, 403, 403, 403, 403, 200, 200, 200],
    members_read:  [401, 200, 200, 200, 200, 200, 200, 200],
    members_write: [401, 403, 403, 403, 403, 201, 201, 201],
  },
  public: {
    read:          [200, 200, 200, 200, 200, 200, 200, 200],
    update:        [401, 403, 403, 403, 403, 200, 200, 200],
    delete:        [401, 403, 403, 403, 403, 403, 202, 202],
    archive:       [401, 403, 403, 403, 403, 403, 201, 201],
    share:         [401, 403, 403, 403, 403, 201, 201, 201],
    hooks:         [401, 403, 403, 403, 403, 201, 201, 201],
    hooks_list:    [401, 403, 403, 403, 403, 200, 200, 200],
    members_read:  [401, 200, 200, 200, 200, 200, 200, 200],
    members_write: [401, 403, 403, 403, 403, 201, 201, 201],
  },
};

// A private project in a private group, every membership (owner: the group's creator) held on the
// group and inherited by the project: a group owner is a project owner, a group master a project master.
// prettier-ignore
const GROUP_PROJECT_EXPECTED: Record<ProjectAction, Row> = {
  //                anon nonm guest rep  dev  maint owner admin
  read:          [404, 404, 200, 200, 200, 200, 200, 200],
  update:        [401, 404, 403, 403, 403, 200, 200, 200],
  delete:        [401, 404, 403, 403, 403, 403, 202, 202],
  archive:       [401, 404, 403, 403, 403, 403, 201, 201],
  share:         [401, 404, 403, 403, 403, 201, 201, 201],
  hooks:         [401, 404, 403, 403, 403, 201, 201, 201],
  hooks_list:    [401, 404, 403, 403, 403, 200, 200, 200],
  members_read:  [401, 404, 200, 200, 200, 200, 200, 200],
  members_write: [401, 404, 403, 403, 403, 201, 201, 201],
};

// DELETE /groups/:id: 10.x EE answered 204, 11.x and later 202 {"message":"202 Accepted"}; geoforge
// chose 202 (GITLAB-NOTES 1.2: "202 or 204 is safest"), asserted here.
// prettier-ignore
const GROUP_EXPECTED: Record<Visibility, Record<GroupAction, Row>> = {
  //                  anon nonm guest rep  dev  maint owner admin
  private: {
    read:          [404, 404, 200, 200, 200, 200, 200, 200],
    update:        [401, 404, 403, 403, 403, 403, 200, 200],
    delete:        [401, 404, 403, 403, 403, 403, 202, 202],
    members_read:  [401, 404, 200, 200, 200, 200, 200, 200],
    members_write: [401, 404, 403, 403, 403, 403, 201, 201],
  },
  internal: {
    read:          [404, 200, 200, 200, 200, 200, 200, 200],
    update:        [401, 403, 403, 403, 403, 403, 200, 200],
    delete:        [401, 403, 403, 403, 403, 403, 202, 202],
    members_read:  [401, 200, 200, 200, 200, 200, 200, 200],
    members_write: [401, 403, 403, 403, 403, 403, 201, 201],
  },
  public: {
    read:          [200, 200, 200, 200, 200, 200, 200, 200],
    update:        [401, 403, 403, 403, 403, 403, 200, 200],
    delete:        [401, 403, 403, 403, 403, 403, 202, 202],
    members_read:  [401, 200, 200, 200, 200, 200, 200, 200],
    members_write: [401, 403, 403, 403, 403, 403, 201, 201],
  },
};

/** Membership levels given through POST /projects/:id/members or /groups/:id/members (GITLAB-NOTES 1.5). */
const LEVELS: Partial<Record<ActorName, number>> = { guest: 10, reporter: 20, developer: 30, maintainer: 40 };
const MUTATING = new Set<string>(['update', 'delete', 'archive', 'share', 'hooks', 'members_write']);

interface Call {
  method: string;
  path: string;
  body?: unknown;
}

describe('permission matrix', () => {
  let site: TestSite;
  const users = {} as Record<Exclude<ActorName, 'anonymous' | 'admin'>, TestUser>;
  let newcomer: TestUser;
  let shareTarget: TestGroup;
  const sharedProjects = {} as Record<Visibility, { id: number }>;
  const sharedGroups = {} as Record<Visibility, TestGroup>;
  let sharedGroupProject: { id: number };

  const tokenOf = (actor: ActorName): string | null => (actor === 'anonymous' ? null : actor === 'admin' ? ROOT_TOKEN : users[actor].token);

  const addMember = async (kind: 'projects' | 'groups', id: number, actor: ActorName) => {
    const level = LEVELS[actor];
    if (level === undefined) return;
    const body = { user_id: users[actor as keyof typeof users].id, access_level: level };
    const response = await site.api(`/${kind}/${id}/members`, { method: 'POST', body, as: users.owner.token });
    if (response.status !== 201) throw new Error(`addMember: ${response.status} ${response.text}`);
  };

  /** A project owned by `owner` (its personal namespace: owner access, GITLAB-NOTES 2.2), with the actor as a member. */
  const freshProject = async (visibility: Visibility, actor: ActorName) => {
    const project = await createProject(site, { visibility }, users.owner.token);
    await addMember('projects', project.id, actor);
    return project as { id: number };
  };

  /** A private project in a private group created by `owner`, with the actor as a member of the group. */
  const freshGroupProject = async (actor: ActorName) => {
    const group = await createGroup(site, { visibility: 'private' }, users.owner.token);
    await addMember('groups', group.id, actor);
    return (await createProject(site, { visibility: 'private', namespace_id: group.id }, users.owner.token)) as { id: number };
  };

  /** A group created by `owner` (the creator becomes its owner, GITLAB-NOTES 2.1), with the actor as a member. */
  const freshGroup = async (visibility: Visibility, actor: ActorName) => {
    const group = await createGroup(site, { visibility }, users.owner.token);
    await addMember('groups', group.id, actor);
    return group;
  };

  const projectCall = (action: ProjectAction, id: number): Call => {
    switch (action) {
      case 'read':
        return { method: 'GET', path: `/projects/${id}` };
      case 'update':
        return { method: 'PUT', path: `/projects/${id}`, body: { description: 'changed by the matrix' } };
      case 'delete':
        return { method: 'DELETE', path: `/projects/${id}` };
      case 'archive':
        return { method: 'POST', path: `/projects/${id}/archive`, body: {} };
      case 'share':
        return { method: 'POST', path: `/projects/${id}/share`, body: { group_id: shareTarget.id, group_access: 30, expires_at: null } };
      case 'hooks':
        return { method: 'POST', path: `/projects/${id}/hooks`, body: { url: 'http://hooks.example.com/matrix' } };
      case 'hooks_list':
        return { method: 'GET', path: `/projects/${id}/hooks` };
      case 'members_read':
        return { method: 'GET', path: `/projects/${id}/members` };
      case 'members_write':
        return { method: 'POST', path: `/projects/${id}/members`, body: { user_id: newcomer.id, access_level: 30 } };
    }
  };

  const groupCall = (action: GroupAction, id: number): Call => {
    switch (action) {
      case 'read':
        return { method: 'GET', path: `/groups/${id}` };
      case 'update':
        return { method: 'PUT', path: `/groups/${id}`, body: { description: 'changed by the matrix' } };
      case 'delete':
        return { method: 'DELETE', path: `/groups/${id}` };
      case 'members_read':
        return { method: 'GET', path: `/groups/${id}/members` };
      case 'members_write':
        return { method: 'POST', path: `/groups/${id}/members`, body: { user_id: newcomer.id, access_level: 30 } };
    }
  };

  /** The error body that goes with each refusal (GITLAB-NOTES 1.3). */
  const expectedForbidden = /^403 Forbidden/;
  const expectedBody = (status: number, resource: 'Project' | 'Group') =>
    status === 401
      ? { message: '401 Unauthorized' }
      : status === 403
        ? { message: expectedForbidden }
        : status === 404
          ? { message: `404 ${resource} Not Found` }
          : status === 202
            ? { message: '202 Accepted' }
            : undefined;

  beforeAll(async () => {
    site = await startSite();
    for (const name of ['nonmember', 'guest', 'reporter', 'developer', 'maintainer', 'owner'] as const) users[name] = await createUser(site);
    newcomer = await createUser(site);
    // Shares go to a public group, so only the project side decides the answer.
    shareTarget = await createGroup(site, { visibility: 'public' });
    // Read-only cells share one resource per visibility, with every member level on it.
    for (const visibility of VISIBILITIES) {
      sharedProjects[visibility] = await createProject(site, { visibility }, users.owner.token);
      sharedGroups[visibility] = await createGroup(site, { visibility }, users.owner.token);
      for (const actor of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
        await addMember('projects', sharedProjects[visibility].id, actor);
        await addMember('groups', sharedGroups[visibility].id, actor);
      }
    }
    const home = await createGroup(site, { visibility: 'private' }, users.owner.token);
    for (const actor of ['guest', 'reporter', 'developer', 'maintainer'] as const) await addMember('groups', home.id, actor);
    sharedGroupProject = await createProject(site, { visibility: 'private', namespace_id: home.id }, users.owner.token);
  });
  afterAll(() => site?.stop());

  const cells = <A extends string>(table: Record<Visibility, Record<A, Row>>, actions: readonly A[]) =>
    VISIBILITIES.flatMap((visibility) =>
      actions.flatMap((action) => ACTORS.map((actor, i) => ({ visibility, action, actor, status: table[visibility][action][i] }))),
    );

  const check = (response: ApiResponse, call: Call, status: number, resource: 'Project' | 'Group', expect: ExpectStatic) => {
    const where = `${call.method} ${call.path} -> ${response.status} ${response.text}`;
    expect(response.status, where).toBe(status);
    const body = expectedBody(status, resource);
    if (body && typeof body.message === 'string') expect(response.body, where).toEqual(body);
    if (body && body.message instanceof RegExp) expect(response.body.message, where).toMatch(body.message);
  };

  /** Runs one project cell on `project` and, on success, checks the effect really happened. */
  const projectCell = async (expect: ExpectStatic, project: { id: number }, action: ProjectAction, actor: ActorName, status: number) => {
    const call = projectCall(action, project.id);
    const response = await site.api(call.path, { method: call.method, body: call.body, as: tokenOf(actor) });
    check(response, call, status, 'Project', expect);
    if (status >= 300) return;
    const after = await site.api(`/projects/${project.id}`);
    if (action === 'delete') expect(after.status).toBe(404);
    if (action === 'archive') expect(after.body.archived).toBe(true);
    if (action === 'update') expect(after.body.description).toBe('changed by the matrix');
    if (action === 'share') expect(after.body.shared_with_groups).toEqual([{ group_id: shareTarget.id, group_name: shareTarget.name, group_access_level: 30 }]);
    if (action === 'members_write') expect((await site.api(`/projects/${project.id}/members/${newcomer.id}`)).body.access_level).toBe(30);
    if (action === 'hooks') expect((await site.api(`/projects/${project.id}/hooks`)).body.map((h: { url: string }) => h.url)).toEqual(['http://hooks.example.com/matrix']);
  };

  describe.concurrent('projects', () => {
    for (const { visibility, action, actor, status } of cells(PROJECT_EXPECTED, PROJECT_ACTIONS)) {
      it(`${visibility} project, ${action} as ${actor}: ${status}`, async ({ expect }) => {
        const project = MUTATING.has(action) ? await freshProject(visibility, actor) : sharedProjects[visibility];
        await projectCell(expect, project, action, actor, status);
      });
    }
  });

  describe.concurrent('projects in a group, access through the group', () => {
    for (const action of PROJECT_ACTIONS) {
      ACTORS.forEach((actor, i) => {
        const status = GROUP_PROJECT_EXPECTED[action][i];
        it(`private group project, ${action} as group ${actor}: ${status}`, async ({ expect }) => {
          const project = MUTATING.has(action) ? await freshGroupProject(actor) : sharedGroupProject;
          await projectCell(expect, project, action, actor, status);
        });
      });
    }
  });

  // GITLAB-NOTES 1.4 step 1: a token that is present but invalid is 401 before anything else, public GETs included.
  describe.concurrent('an invalid token', () => {
    for (const visibility of VISIBILITIES) {
      it(`is 401 on every action on a ${visibility} project and group`, async ({ expect }) => {
        const calls = [
          ...PROJECT_ACTIONS.map((action) => projectCall(action, sharedProjects[visibility].id)),
          ...GROUP_ACTIONS.map((action) => groupCall(action, sharedGroups[visibility].id)),
        ];
        for (const call of calls) {
          const response = await site.api(call.path, { method: call.method, body: call.body, as: 'glpat-not-a-real-token-000000' });
          expect(response.status, `${call.method} ${call.path} -> ${response.status} ${response.text}`).toBe(401);
        }
        // Nothing happened to the shared resources.
        expect((await site.api(`/projects/${sharedProjects[visibility].id}`)).body.archived).toBe(false);
        expect((await site.api(`/groups/${sharedGroups[visibility].id}`)).status).toBe(200);
      });
    }
  });

  describe.concurrent('groups', () => {
    for (const { visibility, action, actor, status } of cells(GROUP_EXPECTED, GROUP_ACTIONS)) {
      it(`${visibility} group, ${action} as ${actor}: ${status}`, async ({ expect }) => {
        const group = MUTATING.has(action) ? await freshGroup(visibility, actor) : sharedGroups[visibility];
        const call = groupCall(action, group.id);
        const response = await site.api(call.path, { method: call.method, body: call.body, as: tokenOf(actor) });
        check(response, call, status, 'Group', expect);
        if (status >= 300) return;
        const after = await site.api(`/groups/${group.id}`);
        if (action === 'delete') expect(after.status).toBe(404);
        if (action === 'update') expect(after.body.description).toBe('changed by the matrix');
        if (action === 'members_write') expect((await site.api(`/groups/${group.id}/members/${newcomer.id}`)).body.access_level).toBe(30);
      });
    }
  });
});
