import { randomUUID } from 'node:crypto';
import { createPersonalAccessToken } from '../../src/services/personal-access-tokens.js';
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
