import { randomUUID } from 'node:crypto';
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
