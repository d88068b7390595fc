import { existsSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { repositoryPath } from '../../src/storage/layout.js';
import { projectWithCommit } from '../helpers/failover.js';
import { FAST_SYNC_ENV, ownStatus, postFile, registryOf } from '../helpers/geo-blobs.js';
import { ROOT_TOKEN, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

/** Which site answered a ref advertisement of the project's repository asked of `site`. */
async function infoRefsNode(site: SiteProcess, project: { path_with_namespace: string }): Promise<{ status: number; node: unknown }> {
  const response = await request(`${site.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, {
    headers: { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}` },
  });
  await response.body.dump();
  return { status: response.statusCode, node: response.headers['x-geoforge-node'] };
}

/** An API read asked of `site`: which site answered, and what. */
async function readNode(site: SiteProcess, apiPath: string): Promise<{ status: number; node: unknown; content: string }> {
  const response = await request(`${site.url}/api/v4${apiPath}`, { headers: { 'private-token': ROOT_TOKEN } });
  return { status: response.statusCode, node: response.headers['x-geoforge-node'], content: await response.body.text() };
}
const readme = (project: { id: number }) => `/projects/${project.id}/repository/files/README.md/raw?ref=master`;

describe('selective sync: a secondary that selects one group of three', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({ secondaryEnv: FAST_SYNC_ENV, timeoutMs: 90_000 }, (sites) => ({ primary, secondary } = sites));

  it("holds only that group's repositories and files, serves the others through the primary, reports 100 %, and follows a change of selection", async () => {
    const node = await waitFor(async () => (await primary.api('/geo_nodes')).body.find((candidate: any) => candidate.name === secondary.name), { message: 'secondary registered' });
    const groups: any[] = [];
    for (const name of ['team-a', 'team-b', 'team-c']) groups.push((await primary.api('/groups', { method: 'POST', body: { name, path: name } })).body);
    const sub = (await primary.api('/groups', { method: 'POST', body: { name: 'team-a-sub', path: 'team-a-sub', parent_id: groups[0].id } })).body;

    const selected = await primary.api(`/geo_nodes/${node.id}`, { method: 'PUT', body: { selective_sync_type: 'namespaces', selective_sync_namespace_ids: [groups[0].id] } });
    expect(selected.status).toBe(200);
    expect(selected.body).toMatchObject({ selective_sync_type: 'namespaces', selective_sync_shards: [], selective_sync_namespace_ids: [groups[0].id] });
    const refusal = await primary.api(`/geo_nodes/${node.id}`, { method: 'PUT', body: { selective_sync_namespace_ids: [999999] } });
    expect(refusal.status).toBe(400);

    const projects: any[] = [];
    for (const [index, group] of [...groups, sub].entries()) {
      const project = await projectWithCommit(primary, `selective-${index}`, { namespace_id: group.id });
      await postFile(primary, `/projects/${project.id}/uploads`, `note-${index}.txt`, Buffer.from(`note ${index}\n`));
      projects.push(project);
    }
    const [inA, inB, inC, inSub] = projects;

    // 100 % of what it should hold: team-a's project and its subgroup's, each a repository and an upload.
    await waitFor(
      async () => {
        const status = await ownStatus(secondary);
        expect(status).toMatchObject({
          repositories_count: 2,
          repositories_synced_count: 2,
          repositories_synced_in_percentage: '100.00%',
          attachments_count: 2,
          attachments_synced_count: 2,
          attachments_synced_in_percentage: '100.00%',
        });
        return true;
      },
      { timeoutMs: 30_000, message: 'secondary holds its selection' },
    );
    const heldProjects = () => new Set(registryOf(secondary).filter((row) => row.to_delete === 0).map((row) => row.project_id ?? row.item_id));
    expect([...heldProjects()].sort()).toEqual([inA.id, inSub.id].sort());
    for (const project of [inA, inSub]) expect(existsSync(repositoryPath(secondary.dataDir, project.id))).toBe(true);
    for (const project of [inB, inC]) expect(existsSync(repositoryPath(secondary.dataDir, project.id))).toBe(false);
    expect(existsSync(path.join(secondary.dataDir, 'uploads', String(inB.id)))).toBe(false);

    // The database replicates whole: every project reads there; blobs outside the selection come from the primary.
    for (const project of projects) expect((await secondary.api(`/projects/${project.id}`)).status).toBe(200);
    expect(await infoRefsNode(secondary, inA)).toEqual({ status: 200, node: secondary.name });
    expect(await infoRefsNode(secondary, inB)).toEqual({ status: 200, node: primary.name });
    // The repository API as well: the secondary's own copy for what it holds, the primary's for the rest.
    expect(await readNode(secondary, readme(inA))).toEqual({ status: 200, node: secondary.name, content: '# selective-0\n' });
    expect(await readNode(secondary, readme(inB))).toEqual({ status: 200, node: primary.name, content: '# selective-1\n' });
    expect(await readNode(secondary, `/projects/${inB.id}/languages`)).toMatchObject({ status: 200, node: primary.name });

    // A change of selection adds team-b's blobs and removes team-a's (and its subgroup's).
    const changed = await primary.api(`/geo_nodes/${node.id}`, { method: 'PUT', body: { selective_sync_namespace_ids: [groups[1].id] } });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.selective_sync_namespace_ids).toEqual([groups[1].id]);
    await waitFor(
      async () => {
        expect([...heldProjects()]).toEqual([inB.id]);
        expect(existsSync(repositoryPath(secondary.dataDir, inB.id))).toBe(true);
        expect(existsSync(repositoryPath(secondary.dataDir, inA.id))).toBe(false);
        const status = await ownStatus(secondary);
        expect(status).toMatchObject({ repositories_count: 1, repositories_synced_in_percentage: '100.00%', attachments_count: 1, attachments_synced_in_percentage: '100.00%' });
        return true;
      },
      { timeoutMs: 30_000, message: 'secondary follows the new selection' },
    );
    expect(await infoRefsNode(secondary, inA)).toEqual({ status: 200, node: primary.name });
  }, 120_000);
});
