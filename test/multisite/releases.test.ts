import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createdOn, readsTheSame, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Releases, their links and system hooks on a secondary: they read the same there as on the
 * primary, and writes sent to the secondary (a release with `ref`, which creates its tag; a link;
 * a system hook) land on the primary and replicate back.
 */
describe('multi-site releases and system hooks', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (apiPath: string, status = 200) => readsTheSame(primary, secondary, apiPath, status);
  const registryState = (projectId: number) => {
    const db = new Database(secondary.dbFile, { readonly: true });
    try {
      return (db.prepare("SELECT state FROM geo_registry WHERE item_type = 'repository' AND item_id = ?").get(projectId) as { state: string } | undefined)?.state;
    } finally {
      db.close();
    }
  };

  it('reads releases and links the same, and takes writes through the secondary', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await createdOn(primary, '/projects', { name: `rel-${suffix}`, visibility: 'private', initialize_with_readme: true });
    await createdOn(primary, `/projects/${project.id}/releases`, {
      tag_name: 'v1.0',
      ref: 'master',
      description: 'first',
      assets: { links: [{ name: 'bin', url: 'https://example.com/bin', filepath: '/bin' }] },
    });
    await waitFor(() => registryState(project.id) === 'synced', { timeoutMs: 30_000, message: 'repository synced on the secondary' });
    const list = await sameOnBoth(`/projects/${project.id}/releases`);
    expect(list.body.map((release: any) => release.tag_name)).toEqual(['v1.0']);
    await sameOnBoth(`/projects/${project.id}/releases/v1.0`);
    const links = await sameOnBoth(`/projects/${project.id}/releases/v1.0/assets/links`);
    expect(links.body.map((link: any) => link.name)).toEqual(['bin']);

    // Through the secondary: a release whose tag it creates, a link, an edit.
    const made = await secondary.api(`/projects/${project.id}/releases`, { method: 'POST', body: { tag_name: 'v2.0', ref: 'master', name: 'Second' } });
    expect(made.status, made.text).toBe(201);
    const onPrimary = await primary.api(`/projects/${project.id}/releases/v2.0`);
    expect(onPrimary.status).toBe(200);
    expect(onPrimary.body).toMatchObject({ name: 'Second', tag_name: 'v2.0' });
    expect((await primary.api(`/projects/${project.id}/repository/tags/v2.0`)).status).toBe(200);
    const link = await secondary.api(`/projects/${project.id}/releases/v2.0/assets/links`, { method: 'POST', body: { name: 'docs', url: 'https://example.com/docs' } });
    expect(link.status, link.text).toBe(201);
    expect((await primary.api(`/projects/${project.id}/releases/v2.0/assets/links/${link.body.id}`)).body.name).toBe('docs');
    const edited = await secondary.api(`/projects/${project.id}/releases/v1.0`, { method: 'PUT', body: { description: 'edited' } });
    expect(edited.status, edited.text).toBe(200);
    await sameOnBoth(`/projects/${project.id}/releases?order_by=created_at&sort=asc`);
    await waitFor(async () => (await secondary.api(`/projects/${project.id}/releases/v1.0`)).body.description === 'edited', { timeoutMs: 30_000 });
  });

  it('reads system hooks the same and creates one through the secondary', async () => {
    const made = await secondary.api('/hooks', { method: 'POST', body: { url: 'https://example.com/system', push_events: true } });
    expect(made.status, made.text).toBe(201);
    expect((await primary.api(`/hooks/${made.body.id}`)).body).toMatchObject({ url: 'https://example.com/system', push_events: true });
    await sameOnBoth('/hooks');
    await sameOnBoth(`/hooks/${made.body.id}`);
    // The secondary queues nothing: only the primary delivers.
    const db = new Database(secondary.dbFile, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'system_hook_%'").pluck().get()).toBe(0);
    } finally {
      db.close();
    }
  });
});
