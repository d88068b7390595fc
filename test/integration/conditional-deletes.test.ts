import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdBy, createGroup, createProject, createUser } from '../helpers/factories.js';
import { gpgKeyPair, sshPublicKey } from '../helpers/keys.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * SPEC "Errors": a delete sent with an If-Unmodified-Since older than the resource answers 412 and
 * deletes nothing (GitLab's destroy_conditionally!, after the lookup and the ability); a later date
 * lets it through. Members, branches, tags and protected refs are tested with their families; these
 * are the others: issuables, labels, award emoji, board lists, users and what they own, projects,
 * groups, hooks, shares and deploy keys.
 */
let site: TestSite;
let project: any;
let group: any;

const STALE = { 'if-unmodified-since': new Date(Date.now() - 3_600_000).toUTCString() };
const LATER = { 'if-unmodified-since': new Date(Date.now() + 3_600_000).toUTCString() };

/** DELETE `path` stale (412, still readable at `readBack`), then with a later date (`status`, gone). */
async function conditionallyDeleted(path: string, readBack: string, body?: Record<string, unknown>, status = 204): Promise<void> {
  const stale = await site.api(path, { method: 'DELETE', headers: STALE, body });
  expect(stale.status, `${path}: ${stale.text}`).toBe(412);
  expect(stale.body).toEqual({ message: '412 Precondition Failed' });
  expect((await site.api(readBack)).status, `${readBack} after a refused delete`).toBe(200);
  const later = await site.api(path, { method: 'DELETE', headers: LATER, body });
  expect(later.status, `${path}: ${later.text}`).toBe(status);
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

describe('conditional deletes of users, projects, groups and what they hold', () => {
  it("a user's SSH keys, GPG keys and emails, on both paths", async () => {
    const user = await createUser(site);
    const key = await createdBy(site, `/users/${user.id}/keys`, { title: 'k', key: sshPublicKey() });
    await conditionallyDeleted(`/users/${user.id}/keys/${key.id}`, `/users/${user.id}/keys/${key.id}`);
    const own = await createdBy(site, '/user/keys', { title: 'mine', key: sshPublicKey() }, user.token);
    const stale = await site.api(`/user/keys/${own.id}`, { method: 'DELETE', headers: STALE, as: user.token });
    expect(stale.status).toBe(412);
    expect((await site.api(`/user/keys/${own.id}`, { method: 'DELETE', headers: LATER, as: user.token })).status).toBe(204);
    const gpg = await createdBy(site, `/users/${user.id}/gpg_keys`, { key: (await gpgKeyPair(user.email)).publicKey });
    await conditionallyDeleted(`/users/${user.id}/gpg_keys/${gpg.id}`, `/users/${user.id}/gpg_keys/${gpg.id}`);
    const email = await createdBy(site, `/users/${user.id}/emails`, { email: `other-${user.username}@example.com` });
    const refused = await site.api(`/users/${user.id}/emails/${email.id}`, { method: 'DELETE', headers: STALE });
    expect(refused.status).toBe(412);
    expect((await site.api(`/users/${user.id}/emails`)).body.map((row: any) => row.id)).toContain(email.id);
    expect((await site.api(`/users/${user.id}/emails/${email.id}`, { method: 'DELETE', headers: LATER })).status).toBe(204);
  });

  it('impersonation tokens (a delete revokes) and users', async () => {
    const user = await createUser(site);
    const token = await createdBy(site, `/users/${user.id}/impersonation_tokens`, { name: 'imp', scopes: ['api'] });
    const path = `/users/${user.id}/impersonation_tokens/${token.id}`;
    expect((await site.api(path, { method: 'DELETE', headers: STALE })).status).toBe(412);
    expect((await site.api(path)).body).toMatchObject({ revoked: false, active: true });
    expect((await site.api(path, { method: 'DELETE', headers: LATER })).status).toBe(204);
    expect((await site.api(path)).body).toMatchObject({ revoked: true });
    await conditionallyDeleted(`/users/${user.id}`, `/users/${user.id}`);
  });

  it('hooks, group shares and deploy keys of a project, then the project and its group', async () => {
    const parent = await createGroup(site);
    const own = await createProject(site, { namespace_id: parent.id });
    const hook = await createdBy(site, `/projects/${own.id}/hooks`, { url: 'http://127.0.0.1:9/hook' });
    await conditionallyDeleted(`/projects/${own.id}/hooks/${hook.id}`, `/projects/${own.id}/hooks/${hook.id}`);
    const other = await createGroup(site);
    await createdBy(site, `/projects/${own.id}/share`, { group_id: other.id, group_access: 30 });
    const unshare = `/projects/${own.id}/share/${other.id}`;
    expect((await site.api(unshare, { method: 'DELETE', headers: STALE })).status).toBe(412);
    expect((await site.api(`/projects/${own.id}`)).body.shared_with_groups).toHaveLength(1);
    expect((await site.api(unshare, { method: 'DELETE', headers: LATER })).status).toBe(204);
    expect((await site.api(`/projects/${own.id}`)).body.shared_with_groups).toEqual([]);
    const deployKey = await createdBy(site, `/projects/${own.id}/deploy_keys`, { title: 'deploy', key: sshPublicKey() });
    await conditionallyDeleted(`/projects/${own.id}/deploy_keys/${deployKey.id}`, `/projects/${own.id}/deploy_keys/${deployKey.id}`);
    await conditionallyDeleted(`/projects/${own.id}`, `/projects/${own.id}`, undefined, 202);
    await conditionallyDeleted(`/groups/${parent.id}`, `/groups/${parent.id}`, undefined, 202);
  });
});
