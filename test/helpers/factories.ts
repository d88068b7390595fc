import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createPersonalAccessToken } from '../../src/services/users/personal-access-tokens.js';
import type { TestSite } from './site.js';

let counter = 0;

export interface TestUser {
  id: number;
  username: string;
  email: string;
  /** A personal access token with the api scope. */
  token: string;
}

/** Creates a user through the admin API and gives it an api token; every name is unique per call. */
export async function createUser(site: TestSite, attrs: Record<string, unknown> = {}): Promise<TestUser> {
  const suffix = `${++counter}${randomUUID().slice(0, 6)}`;
  const body = { username: `user${suffix}`, email: `user${suffix}@example.com`, name: `User ${suffix}`, password: 'password123', ...attrs };
  const response = await site.api('/users', { method: 'POST', body });
  if (response.status !== 201) throw new Error(`createUser: ${response.status} ${response.text}`);
  const { token } = createPersonalAccessToken(site.site.db, response.body.id, { name: 'test', scopes: ['api'] });
  return { id: response.body.id, username: response.body.username, email: response.body.email, token };
}

/** `count` users made one after another (ids in order), as createUser makes them. */
export async function createUsers(site: TestSite, count: number): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (let index = 0; index < count; index += 1) users.push(await createUser(site));
  return users;
}

/** A personal access token with the given scopes, made through the service as the CLI does. */
export function tokenFor(site: TestSite, userId: number, scopes: string[], expiresAt: string | null = null): string {
  return createPersonalAccessToken(site.site.db, userId, { name: 'test', scopes, expiresAt }).token;
}

export interface TestGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  parent_id: number | null;
  visibility: string;
}

/** Creates a group through the API (as root unless `as` names a token); name and path are unique per call. */
export async function createGroup(site: TestSite, attrs: Record<string, unknown> = {}, as?: string): Promise<TestGroup> {
  const suffix = `${++counter}${randomUUID().slice(0, 6)}`;
  const body = { name: `Group ${suffix}`, path: `group${suffix}`, ...attrs };
  const response = await site.api('/groups', { method: 'POST', body, as });
  if (response.status !== 201) throw new Error(`createGroup: ${response.status} ${response.text}`);
  return response.body;
}

/** Creates a project through the API (as root unless `as` names a token); its name is unique per call unless given. */
export async function createProject(site: TestSite, attrs: Record<string, unknown> = {}, as?: string): Promise<any> {
  const body = { name: `Project ${++counter}${randomUUID().slice(0, 6)}`, ...attrs };
  const response = await site.api('/projects', { method: 'POST', body, as });
  if (response.status !== 201) throw new Error(`createProject: ${response.status} ${response.text}`);
  return response.body;
}

/** Adds a member to a project or group through the members API, as `as` (default root). */
export async function addMember(site: TestSite, kind: 'projects' | 'groups', id: number, user: { id: number }, level: number, as?: string): Promise<void> {
  const response = await site.api(`/${kind}/${id}/members`, { method: 'POST', body: { user_id: user.id, access_level: level }, as });
  if (response.status !== 201) throw new Error(`addMember: ${response.status} ${response.text}`);
}

/** Adds each [user, access level] as a member, one after another, as `as` (default root). */
export async function addMembers(site: TestSite, kind: 'projects' | 'groups', id: number, members: [{ id: number }, number][], as?: string): Promise<void> {
  for (const [user, level] of members) await addMember(site, kind, id, user, level, as);
}

/** POSTs `body` to `path` as `as` (root unless given) and expects 201; the created resource. */
export async function createdBy(site: TestSite, path: string, body: Record<string, unknown>, as?: string | null): Promise<any> {
  const response = await site.api(path, { method: 'POST', body, as });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

export interface GroupTeam {
  owner: TestUser;
  /** A Reporter (20) of the group. */
  reporter: TestUser;
  /** A Guest (10) of the group. */
  guest: TestUser;
  /** No member of anything here. */
  outsider: TestUser;
  /** Private, the owner's. */
  group: TestGroup;
}

/**
 * Four new users and a private group of the owner's with reporter and guest as its members.
 * `fill(team)` runs before reporter and guest are added (subgroups, projects).
 */
export async function createGroupTeam(site: TestSite, fill?: (team: GroupTeam) => Promise<void>): Promise<GroupTeam> {
  const [owner, reporter, guest, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site)]);
  const group = await createGroup(site, { visibility: 'private' }, owner.token);
  const team = { owner, reporter, guest, outsider, group };
  await fill?.(team);
  await addMember(site, 'groups', group.id, reporter, 20, owner.token);
  await addMember(site, 'groups', group.id, guest, 10, owner.token);
  return team;
}
