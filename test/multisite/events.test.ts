import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Events are written by the primary alone: a write made through a secondary is forwarded, the
 * primary records its event, and the row replicates back, so both sites list the same JSON.
 */
describe('multi-site events', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  /** Waits until the secondary answers `path` as the primary does (but for each site's own URL in the links), and returns that body. */
  const sameOnBoth = async (path: string, as?: string | null) => (await readsTheSame(primary, secondary, path, 200, { as })).body;

  it('records contributions made through a secondary on the primary, and lists them identically on both', async () => {
    const suffix = randomUUID().slice(0, 8);
    const user = await secondary.api('/users', { method: 'POST', body: { username: `ev${suffix}`, email: `ev${suffix}@example.com`, name: 'Ev', password: 'password123' } });
    expect(user.status).toBe(201);
    const token = await secondary.api(`/users/${user.body.id}/impersonation_tokens`, { method: 'POST', body: { name: 'events', scopes: ['api'] } });
    expect(token.status).toBe(201);
    const as = token.body.token as string;

    // A project of root's: deleting a user who owns personal projects is not this test's matter.
    const project = await secondary.api('/projects', { method: 'POST', body: { name: `events-${suffix}`, visibility: 'public' } });
    expect(project.status).toBe(201);
    const member = await secondary.api(`/projects/${project.body.id}/members`, { method: 'POST', body: { user_id: user.body.id, access_level: 30 } });
    expect(member.status).toBe(201);
    const commit = await secondary.api(`/projects/${project.body.id}/repository/files/a.txt`, {
      method: 'POST',
      body: { branch: 'master', content: 'a', commit_message: 'add a.txt' },
      as,
    });
    expect(commit.status).toBe(201);

    const events = await sameOnBoth(`/projects/${project.body.id}/events`, as);
    expect(events.map((e: any) => [e.action_name, e.author_id])).toEqual([
      ['pushed new', user.body.id],
      ['joined', user.body.id],
      ['created', 1],
    ]);
    expect(events[0].push_data).toMatchObject({ commit_count: 1, ref: 'master', commit_title: 'add a.txt' });
    await sameOnBoth(`/users/${user.body.id}/events`);
    await sameOnBoth('/events', as);

    // Deleted through the secondary: the events move to the ghost user on the primary, and on both.
    expect((await secondary.api(`/users/${user.body.id}`, { method: 'DELETE' })).status).toBe(204);
    const [pushed, joined, created] = await waitFor(
      async () => {
        const list = await sameOnBoth(`/projects/${project.body.id}/events`, null);
        return list[0].author_username === 'ghost' && list;
      },
      { timeoutMs: 15_000, message: 'events moved to the ghost user on both sites' },
    );
    expect(pushed.author).toMatchObject({ username: 'ghost', state: 'blocked' });
    expect([joined.author_username, created.author_username]).toEqual(['ghost', 'root']);
  });
});
