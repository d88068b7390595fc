import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRoutes } from '../../src/api/index.js';
import { mergeabilityChecksSettled } from '../../src/services/merge-requests/mergeability.js';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { eventLogHead, replicatedSince, startSite, type TestSite } from '../helpers/site.js';

/**
 * The GET routes of merging (merge_ref, approvals, project approvals), read from the route table:
 * below 500 for an admin, a member and anonymous callers, and no replicated write (a GET never
 * computes mergeability: the background check on the primary does).
 */
const MERGING = /\/(merge_ref|approvals)$/;

let site: TestSite;
let member: TestUser;
let projectId: number;
let iid: number;

beforeAll(async () => {
  site = await startSite();
  member = await createUser(site);
  const project = await createProject(site, { visibility: 'private' });
  projectId = project.id;
  await addMember(site, 'projects', project.id, member, 30);
  const commit = (branch: string, file: string, start?: string) =>
    site.api(`/projects/${project.id}/repository/commits`, {
      method: 'POST',
      body: { branch, start_branch: start, commit_message: file, actions: [{ action: 'create', file_path: file, content: 'x\n' }] },
    });
  expect((await commit('master', 'README.md')).status).toBe(201);
  expect((await commit('feature', 'feature.txt', 'master')).status).toBe(201);
  const created = await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { source_branch: 'feature', target_branch: 'master', title: 'Read me' } });
  expect(created.status).toBe(201);
  iid = created.body.iid;
  await waitFor(async () => (await site.api(`/projects/${project.id}/merge_requests/${iid}`)).body.merge_status === 'can_be_merged');
  await mergeabilityChecksSettled(site.site.ctx);
  for (const as of [undefined, member.token]) await site.api('/user', { as });
});
afterAll(() => site.stop());


describe('GET routes of merging', () => {
  const routes = apiRoutes('test', [], null).filter((route) => route.method === 'get' && MERGING.test(route.path));

  it('are found in the route table', () => {
    expect(routes.map((route) => route.path).sort()).toEqual([
      '/projects/:id/approvals',
      '/projects/:id/merge_requests/:merge_request_iid/approvals',
      '/projects/:id/merge_requests/:merge_request_iid/merge_ref',
    ]);
  });

  it('answer below 500 and write no replicated row', async () => {
    const before = eventLogHead(site);
    for (const route of routes) {
      const path = route.path.replace(':id', String(projectId)).replace(':merge_request_iid', String(iid));
      for (const as of [undefined, member.token, null]) {
        const response = await site.api(path, { as });
        expect(response.status, `${path}: ${response.text}`).toBeLessThan(500);
        if (as === undefined) expect(response.status, `${path}: ${response.text}`).toBe(200);
        if (as === null) expect(response.status).toBe(401);
      }
    }
    expect(replicatedSince(site, before)).toEqual([]);
  });
});
