import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdBy, createGroup, createProject } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * SPEC "Errors": a delete sent with an If-Unmodified-Since older than the resource answers 412 and
 * deletes nothing (GitLab's destroy_conditionally!, after the lookup and the ability); a later date,
 * or one that is no HTTP date, lets it through. Members, branches, tags and protected refs are
 * tested with their families; these are the issuable ones: issues, merge requests, labels, award
 * emoji and board lists.
 */
let site: TestSite;
let project: any;
let group: any;

const STALE = { 'if-unmodified-since': new Date(Date.now() - 3_600_000).toUTCString() };
const LATER = { 'if-unmodified-since': new Date(Date.now() + 3_600_000).toUTCString() };

/** DELETE `path` stale (412, still readable at `readBack`), then with a later date (204, gone). */
async function conditionallyDeleted(path: string, readBack: string, body?: Record<string, unknown>): Promise<void> {
  const stale = await site.api(path, { method: 'DELETE', headers: STALE, body });
  expect(stale.status, `${path}: ${stale.text}`).toBe(412);
  expect(stale.body).toEqual({ message: '412 Precondition Failed' });
  expect((await site.api(readBack)).status, `${readBack} after a refused delete`).toBe(200);
  const later = await site.api(path, { method: 'DELETE', headers: LATER, body });
  expect(later.status, `${path}: ${later.text}`).toBe(204);
  expect((await site.api(readBack)).status, `${readBack} after the delete`).toBe(404);
}

beforeAll(async () => {
  site = await startSite();
  group = await createGroup(site);
  project = await createProject(site, { namespace_id: group.id, initialize_with_readme: true });
});
afterAll(() => site.stop());

describe('conditional deletes of issuables', () => {
  it('issues', async () => {
    const issue = await createdBy(site, `/projects/${project.id}/issues`, { title: 'conditional' });
    await conditionallyDeleted(`/projects/${project.id}/issues/${issue.iid}`, `/projects/${project.id}/issues/${issue.iid}`);
  });

  it('merge requests, whose unknown iid answers 404 Not found on delete as on read', async () => {
    await createdBy(site, `/projects/${project.id}/repository/branches`, { branch: 'conditional', ref: 'master' });
    const mr = await createdBy(site, `/projects/${project.id}/merge_requests`, { source_branch: 'conditional', target_branch: 'master', title: 'conditional' });
    await conditionallyDeleted(`/projects/${project.id}/merge_requests/${mr.iid}`, `/projects/${project.id}/merge_requests/${mr.iid}`);
    expect((await site.api(`/projects/${project.id}/merge_requests/${mr.iid}`, { method: 'DELETE' })).body).toEqual({ message: '404 Not found' });
  });

  it('project and group labels, by path and by body', async () => {
    await createdBy(site, `/projects/${project.id}/labels`, { name: 'by-path', color: '#ff0000' });
    await conditionallyDeleted(`/projects/${project.id}/labels/by-path`, `/projects/${project.id}/labels/by-path`);
    await createdBy(site, `/projects/${project.id}/labels`, { name: 'by-body', color: '#ff0000' });
    await conditionallyDeleted(`/projects/${project.id}/labels`, `/projects/${project.id}/labels/by-body`, { name: 'by-body' });
    await createdBy(site, `/groups/${group.id}/labels`, { name: 'group-label', color: '#00ff00' });
    await conditionallyDeleted(`/groups/${group.id}/labels/group-label`, `/groups/${group.id}/labels/group-label`);
  });

  it('award emoji on an issue and on a note', async () => {
    const issue = await createdBy(site, `/projects/${project.id}/issues`, { title: 'awarded' });
    const base = `/projects/${project.id}/issues/${issue.iid}`;
    const award = await createdBy(site, `${base}/award_emoji`, { name: 'thumbsup' });
    await conditionallyDeleted(`${base}/award_emoji/${award.id}`, `${base}/award_emoji/${award.id}`);
    const note = await createdBy(site, `${base}/notes`, { body: 'a note' });
    const noteAward = await createdBy(site, `${base}/notes/${note.id}/award_emoji`, { name: 'tada' });
    await conditionallyDeleted(`${base}/notes/${note.id}/award_emoji/${noteAward.id}`, `${base}/notes/${note.id}/award_emoji/${noteAward.id}`);
  });

  it('board lists', async () => {
    const label = await createdBy(site, `/projects/${project.id}/labels`, { name: 'doing', color: '#0000ff' });
    const board = await createdBy(site, `/projects/${project.id}/boards`, { name: 'conditional' });
    const list = await createdBy(site, `/projects/${project.id}/boards/${board.id}/lists`, { label_id: label.id });
    const path = `/projects/${project.id}/boards/${board.id}/lists/${list.id}`;
    await conditionallyDeleted(path, path);
  });
});
