import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createdOn, readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * The rest of the index across sites (issue 26, item 9): broadcast messages, application settings
 * and access requests replicate; writes through the secondary land on the primary; a setting changed
 * on the primary governs what the secondary answers (its in-memory copy is dropped when the
 * replicated row changes).
 */
describe('multi-site administration', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (path: string, status = 200, as?: string | null) => readsTheSame(primary, secondary, path, status, as === undefined ? {} : { as });

  /** A user with an api token, made through `site`. */
  async function userOn(site: SiteProcess) {
    const suffix = randomUUID().slice(0, 8);
    const user = await createdOn(site, '/users', { username: `admin-${suffix}`, email: `admin-${suffix}@example.com`, name: `Admin ${suffix}`, password: 'password123' });
    const token = await createdOn(site, `/users/${user.id}/impersonation_tokens`, { name: 'administration', scopes: ['api'] });
    return { id: user.id as number, token: token.token as string };
  }

  it('broadcast messages written on either site read the same on both, even anonymously', async () => {
    const first = await createdOn(primary, '/broadcast_messages', { message: 'from the primary' });
    const second = await createdOn(secondary, '/broadcast_messages', { message: 'through the secondary', broadcast_type: 'notification' });
    expect((await primary.api(`/broadcast_messages/${second.id}`)).body.message).toBe('through the secondary');
    const list = await sameOnBoth('/broadcast_messages', 200, null);
    expect(list.body.map((message: any) => message.id)).toEqual(expect.arrayContaining([first.id, second.id]));
    await sameOnBoth(`/broadcast_messages/${second.id}`, 200, null);
    expect((await secondary.api(`/broadcast_messages/${first.id}`, { method: 'DELETE' })).status).toBe(204);
    await sameOnBoth(`/broadcast_messages/${first.id}`, 404);
  });

  it('settings put through the secondary land on the primary; a setting changed on the primary governs the secondary', async () => {
    const put = await secondary.api('/application/settings', { method: 'PUT', body: { home_page_url: 'https://home.example.com', default_projects_limit: 7 } });
    expect(put.status, put.text).toBe(200);
    expect((await primary.api('/application/settings')).body).toMatchObject({ home_page_url: 'https://home.example.com', default_projects_limit: 7 });
    await sameOnBoth('/application/settings');

    // The secondary has read (and kept in memory) the settings: gravatar_enabled off shows no avatar.
    const user = await userOn(primary);
    await sameOnBoth(`/users/${user.id}`);
    expect((await secondary.api(`/users/${user.id}`)).body.avatar_url).toBeNull();
    expect((await primary.api('/application/settings', { method: 'PUT', body: { gravatar_enabled: true } })).status).toBe(200);
    const shown = await waitFor(
      async () => {
        const avatar = (await secondary.api(`/users/${user.id}`)).body.avatar_url;
        return typeof avatar === 'string' && avatar;
      },
      { timeoutMs: 30_000, message: 'the secondary shows the Gravatar once the setting replicated' },
    );
    expect(shown).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\//);
    await sameOnBoth(`/users/${user.id}`);

    // restricted_visibility_levels set on the primary refuses a non-admin's public project sent to the secondary.
    await primary.api('/application/settings', { method: 'PUT', body: { restricted_visibility_levels: ['public'], gravatar_enabled: false } });
    await sameOnBoth('/application/settings');
    const refused = await secondary.api('/projects', { method: 'POST', body: { name: `open-${randomUUID().slice(0, 8)}`, visibility: 'public' }, as: user.token });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { visibility_level: ['public has been restricted by your GitLab administrator'] } });
    await primary.api('/application/settings', { method: 'PUT', body: { restricted_visibility_levels: [], default_projects_limit: 100000 } });
  });

  it('access requests made through the secondary land on the primary and read the same; approving makes a member', async () => {
    const asker = await userOn(primary);
    const suffix = randomUUID().slice(0, 8);
    const group = await createdOn(primary, '/groups', { name: `open-${suffix}`, path: `open-${suffix}`, visibility: 'public', request_access_enabled: true });
    await sameOnBoth(`/groups/${group.id}`);
    const asked = await secondary.api(`/groups/${group.id}/access_requests`, { method: 'POST', as: asker.token });
    expect(asked.status, asked.text).toBe(201);
    expect((await primary.api(`/groups/${group.id}/access_requests`)).body.map((row: any) => row.id)).toEqual([asker.id]);
    await sameOnBoth(`/groups/${group.id}/access_requests`);
    const approved = await secondary.api(`/groups/${group.id}/access_requests/${asker.id}/approve`, { method: 'PUT', body: { access_level: 20 } });
    expect(approved.status, approved.text).toBe(201);
    const members = await sameOnBoth(`/groups/${group.id}/members/${asker.id}`);
    expect(members.body.access_level).toBe(20);
    await sameOnBoth(`/groups/${group.id}/access_requests`);
    expect((await secondary.api(`/groups/${group.id}/access_requests`)).body).toEqual([]);
  });
});
