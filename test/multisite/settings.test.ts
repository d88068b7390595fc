import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createdOn, readsTheSame, useTwoSites, type SiteProcess } from '../helpers/multisite.js';

/**
 * Settings replicate (issue 17, item 6): badges (rendered with the replicated repository's commit)
 * and group hooks, written through the primary or forwarded by the secondary, read the same on the
 * secondary; notification settings and statuses too, and their GETs write nothing there.
 */
describe('multi-site settings', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (path: string, status = 200) => readsTheSame(primary, secondary, path, status);
  const created = createdOn;

  it('badges of a project and its group, and a group hook, read the same on the secondary', async () => {
    const suffix = randomUUID().slice(0, 8);
    const group = await created(primary, '/groups', { name: `settings-${suffix}`, path: `settings-${suffix}` });
    const project = await created(primary, '/projects', { name: `settings-${suffix}`, namespace_id: group.id, initialize_with_readme: true });
    await created(primary, `/groups/${group.id}/badges`, { link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/%{project_id}.svg' });
    const badge = await created(secondary, `/projects/${project.id}/badges`, { link_url: 'https://e.test/%{default_branch}', image_url: 'https://e.test/%{commit_sha}.svg' });
    expect(badge.rendered_image_url).toMatch(/^https:\/\/e\.test\/[0-9a-f]{40}\.svg$/);
    const hook = await created(secondary, `/groups/${group.id}/hooks`, { url: 'https://hooks.example.com/in', issues_events: true });

    const badges = await sameOnBoth(`/projects/${project.id}/badges`);
    expect(badges.body.map((row: any) => row.kind)).toEqual(['group', 'project']);
    expect(badges.body[1].rendered_image_url).toBe(badge.rendered_image_url);
    await sameOnBoth(`/projects/${project.id}/badges/${badge.id}`);
    await sameOnBoth(`/groups/${group.id}/badges`);
    const hooks = await sameOnBoth(`/groups/${group.id}/hooks`);
    expect(hooks.body).toEqual([expect.objectContaining({ id: hook.id, group_id: group.id, issues_events: true })]);
    await sameOnBoth(`/groups/${group.id}/hooks/${hook.id}`);
  });

  it('notification settings and statuses read the same on the secondary, the defaults without a row', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await created(primary, '/projects', { name: `notify-${suffix}` });
    const defaults = await sameOnBoth(`/projects/${project.id}/notification_settings`);
    expect(defaults.body).toEqual({ level: 'global' });
    const changed = await secondary.api(`/projects/${project.id}/notification_settings`, { method: 'PUT', body: { level: 'custom', new_issue: true } });
    expect(changed.status, changed.text).toBe(200);
    const custom = await sameOnBoth(`/projects/${project.id}/notification_settings`);
    expect(custom.body).toMatchObject({ level: 'custom', events: { new_issue: true } });
    await sameOnBoth('/notification_settings');
    expect((await secondary.api('/user/status', { method: 'PUT', body: { emoji: 'rocket', message: 'Shipping' } })).status).toBe(200);
    const status = await sameOnBoth('/user/status');
    expect(status.body).toEqual({ emoji: 'rocket', message: 'Shipping', message_html: 'Shipping' });
    await sameOnBoth('/users/root/status');
  });
});
