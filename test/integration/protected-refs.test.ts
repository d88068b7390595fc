import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProtectedBranchRow } from '../../src/db/tables/protected-refs.js';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMembers, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** Protected branches and tags: the API rows, and their enforcement on real git pushes and on the API's ref writes (issue 17, item 2). */
describe('protected branches and tags', () => {
  let site: TestSite;
  let scratch: string;
  let git: ReturnType<typeof gitClient>;
  let owner: TestUser;
  let maintainer: TestUser;
  let developer: TestUser;
  let reporter: TestUser;
  let stranger: TestUser;
  let project: any;
  let work: string;
  const repo = (suffix = '') => `/projects/${project.id}/repository${suffix}`;
  const enc = encodeURIComponent;
  const bareRef = async (ref: string) =>
    (await runGit(['--git-dir', repositoryPath(site.dataDir, project.id), 'rev-parse', '--verify', '--quiet', ref]).catch(() => ({ stdout: '' }))).stdout.trim();
  const gitFails = async (args: string[], cwd?: string) => {
    try {
      await git(args, cwd);
    } catch (error) {
      return String((error as Error).message);
    }
    throw new Error(`git ${args.join(' ')} succeeded`);
  };
  const commitFile = async (file: string, content: string) => {
    await writeFile(path.join(work, file), content);
    await git(['add', file], work);
    await git(['commit', '--quiet', '-m', `add ${file}`], work);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  };
  const as = (user: TestUser) => remoteUrl(site.url, project, user);

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-protected-'));
    git = gitClient(scratch);
    [owner, maintainer, developer, reporter, stranger] = await Promise.all([createUser(site), createUser(site), createUser(site), createUser(site), createUser(site)]);
    project = await createProject(site, { visibility: 'private', initialize_with_readme: true }, owner.token);
    await addMembers(site, 'projects', project.id, [[maintainer, 40], [developer, 30], [reporter, 20]], owner.token);
    work = path.join(scratch, 'work');
    await git(['clone', '--quiet', as(developer), work]);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('protects the default branch at its first push: maintainers push and merge', async () => {
    const list = await site.api(`/projects/${project.id}/protected_branches`, { as: maintainer.token });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('1');
    expect(list.body).toEqual([
      expect.objectContaining({
        name: 'master',
        push_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
        merge_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }],
      }),
    ]);
    const branch = await site.api(repo('/branches/master'), { as: developer.token });
    expect(branch.body).toMatchObject({ name: 'master', protected: true, developers_can_push: false, developers_can_merge: false, can_push: false, default: true });
    expect((await site.api(repo('/branches/master'), { as: maintainer.token })).body.can_push).toBe(true);
    const free = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'open', ref: 'master' } });
    expect(free.body).toMatchObject({ protected: false, can_push: true });
    expect((await site.api(repo('/branches/open'), { as: reporter.token })).body.can_push).toBe(false);
  });

  it('protects the default branch of a fork once its repository is copied', async () => {
    const fork = await site.api(`/projects/${project.id}/fork`, { method: 'POST', as: maintainer.token });
    expect(fork.status).toBe(201);
    const deadline = Date.now() + 15_000;
    let state = fork.body;
    while (state.import_status !== 'finished' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      state = (await site.api(`/projects/${fork.body.id}`, { as: maintainer.token })).body;
    }
    expect(state.import_status).toBe('finished');
    const rows = await site.api(`/projects/${fork.body.id}/protected_branches`, { as: maintainer.token });
    expect(rows.body.map((row: any) => [row.name, row.push_access_levels[0].access_level])).toEqual([['master', 40]]);
  });

  it("refuses a developer's git push to a maintainers-only branch and accepts a maintainer's", async () => {
    const before = await bareRef('refs/heads/master');
    const sha = await commitFile('dev.txt', 'dev\n');
    const refused = await gitFails(['push', 'origin', 'HEAD:refs/heads/master'], work);
    expect(refused).toContain('GitLab: You are not allowed to push code to protected branches on this project.');
    expect(await bareRef('refs/heads/master')).toBe(before);
    await git(['push', '--quiet', as(maintainer), 'HEAD:refs/heads/master'], work);
    expect(await bareRef('refs/heads/master')).toBe(sha);
    // A maintainer may not force-push a protected branch, nor delete it over git.
    await git(['reset', '--quiet', '--hard', 'HEAD~1'], work);
    await commitFile('other.txt', 'other\n');
    expect(await gitFails(['push', '--force', as(maintainer), 'HEAD:refs/heads/master'], work)).toContain(
      'You are not allowed to force push code to a protected branch on this project.',
    );
    expect(await gitFails(['push', as(maintainer), ':refs/heads/master'], work)).toContain('The default branch of a project cannot be deleted.');
    expect(await bareRef('refs/heads/master')).toBe(sha);
    await git(['reset', '--quiet', '--hard', sha], work);
  });

  it('applies wildcards to pushes: release-* refuses developers, other branches take them; one refused ref refuses the push', async () => {
    const made = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: maintainer.token, body: { name: 'release-*', push_access_level: 40, merge_access_level: 30 } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'release-*', push_access_levels: [{ access_level: 40 }], merge_access_levels: [{ access_level: 30 }] });
    const refused = await gitFails(['push', 'origin', 'HEAD:refs/heads/release-1.0', 'HEAD:refs/heads/feature/free'], work);
    expect(refused).toContain('You are not allowed to push code to protected branches on this project.');
    expect(await bareRef('refs/heads/release-1.0')).toBe('');
    expect(await bareRef('refs/heads/feature/free')).toBe('');
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/feature/free'], work);
    expect(await bareRef('refs/heads/feature/free')).not.toBe('');
    await git(['push', '--quiet', as(maintainer), 'HEAD:refs/heads/release-1.0'], work);
    const branch = await site.api(repo(`/branches/${enc('release-1.0')}`), { as: developer.token });
    expect(branch.body).toMatchObject({ protected: true, developers_can_push: false, developers_can_merge: true, can_push: false });
    // A developer may not delete a protected branch over git either; a maintainer may only through the API.
    expect(await gitFails(['push', 'origin', ':refs/heads/release-1.0'], work)).toContain('Only a project maintainer or owner can delete a protected branch.');
    expect(await gitFails(['push', as(maintainer), ':refs/heads/release-1.0'], work)).toContain('You can only delete protected branches using the web interface.');
    expect((await site.api(repo(`/branches/${enc('release-1.0')}`), { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(repo(`/branches/${enc('release-1.0')}`), { method: 'DELETE', as: maintainer.token })).status).toBe(204);
  });

  it('applies a policy too large for the environment (hundreds of long patterns), handed to the hook in a file', async () => {
    const now = new Date().toISOString();
    site.site.db.transaction(() => {
      for (let i = 0; i < 800; i += 1) {
        insertProtectedBranchRow(site.site.db, {
          project_id: project.id,
          name: `bulk-${String(i).padStart(3, '0')}-${'x'.repeat(200)}-*`,
          push_access_level: 40,
          merge_access_level: 40,
          unprotect_access_level: 40,
          created_at: now,
          updated_at: now,
        });
      }
    })();
    const name = `bulk-799-${'x'.repeat(200)}-end`;
    expect(await gitFails(['push', 'origin', `HEAD:refs/heads/${name}`], work)).toContain('You are not allowed to push code to protected branches on this project.');
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/not-bulk'], work);
    expect(await bareRef('refs/heads/not-bulk')).not.toBe('');
    await git(['push', '--quiet', as(maintainer), `HEAD:refs/heads/${name}`], work);
    expect(await bareRef(`refs/heads/${name}`)).not.toBe('');
    site.site.db.prepare("DELETE FROM protected_branches WHERE project_id = ? AND name LIKE 'bulk-%'").run(project.id);
    // The policy file lived only for its push.
    expect((await readdir(path.join(site.dataDir, 'git-hooks'))).filter((entry) => entry.startsWith('.policy-'))).toEqual([]);
  });

  it('refuses API writes to a protected branch for those who may not push there', async () => {
    const refused = await site.api(repo('/files/api.txt'), { method: 'POST', as: developer.token, body: { branch: 'master', content: 'x', commit_message: 'api' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'You are not allowed to push into this branch' });
    const commits = await site.api(repo('/commits'), { method: 'POST', as: developer.token, body: { branch: 'master', commit_message: 'x', actions: [{ action: 'create', file_path: 'c.txt', content: 'c' }] } });
    expect(commits.status).toBe(400);
    expect((await site.api(repo('/files/api.txt'), { method: 'POST', as: maintainer.token, body: { branch: 'master', content: 'x', commit_message: 'api' } })).status).toBe(201);
    // Creating a branch a wildcard covers needs the right to push there.
    const created = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'release-2', ref: 'master' } });
    expect(created.status).toBe(400);
    expect(created.body.message).toBe('You are not allowed to push code to protected branches on this project.');
  });

  it('round-trips branch names with dots, slashes and unicode through the encoded path (GET, protect, DELETE)', async () => {
    for (const name of ['v1.2.3', 'feature/deep/name.x', 'ünïcødé/分支']) {
      const made = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: name, ref: 'master' } });
      expect(made.status, name).toBe(201);
      expect(made.body).toMatchObject({ name, protected: false, developers_can_push: false, can_push: true });
      expect((await site.api(repo(`/branches/${enc(name)}`), { as: reporter.token })).body.name).toBe(name);
      const protectedOne = await site.api(repo(`/branches/${enc(name)}/protect`), { method: 'PUT', as: maintainer.token, body: { developers_can_push: true } });
      expect(protectedOne.status).toBe(200);
      expect(protectedOne.body).toMatchObject({ name, protected: true, developers_can_push: true, developers_can_merge: false });
      const row = await site.api(`/projects/${project.id}/protected_branches/${enc(name)}`, { as: maintainer.token });
      expect(row.body).toMatchObject({ name, push_access_levels: [{ access_level: 30 }] });
      expect((await site.api(repo(`/branches/${enc(name)}/unprotect`), { method: 'PUT', as: maintainer.token })).body.protected).toBe(false);
      expect((await site.api(`/projects/${project.id}/protected_branches/${enc(name)}`, { as: maintainer.token })).status).toBe(404);
      expect((await site.api(repo(`/branches/${enc(name)}`), { method: 'DELETE', as: developer.token })).status).toBe(204);
      expect((await site.api(repo(`/branches/${enc(name)}`), { as: reporter.token })).status).toBe(404);
    }
  });

  it('creates branches from a tag and from a sha', async () => {
    const sha = await bareRef('refs/heads/master');
    expect((await site.api(repo('/tags'), { method: 'POST', as: maintainer.token, body: { tag_name: 'base', ref: 'master' } })).status).toBe(201);
    const fromTag = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'from-tag', ref: 'base' } });
    expect(fromTag.body.commit.id).toBe(sha);
    const fromSha = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'from-sha', ref: sha.slice(0, 10) } });
    expect(fromSha.body.commit.id).toBe(sha);
    const bad = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'from-nothing', ref: 'no-such-ref' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid reference name');
  });

  it('answers the error rows of the protected branches API', async () => {
    const base = `/projects/${project.id}/protected_branches`;
    expect((await site.api(base, { as: null })).status).toBe(401);
    expect((await site.api(base, { as: stranger.token })).status).toBe(404);
    expect((await site.api(base, { as: developer.token })).status).toBe(403);
    expect((await site.api(base, { method: 'POST', as: developer.token, body: { name: 'x' } })).status).toBe(403);
    const duplicate = await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'release-*' } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ message: "Protected branch 'release-*' already exists" });
    const level = await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'y', push_access_level: 20 } });
    expect(level.status).toBe(400);
    expect(level.body.message).toBe('push_access_level does not have a valid value');
    expect((await site.api(base, { method: 'POST', as: maintainer.token, body: {} })).body).toEqual({ message: 'name is missing' });
    expect((await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'bad name?' } })).status).toBe(400);
    expect((await site.api(`${base}/nope`, { as: maintainer.token })).body).toEqual({ message: '404 Not found' });
    expect((await site.api(`${base}/nope`, { method: 'DELETE', as: maintainer.token })).status).toBe(404);
    expect((await site.api(repo(`/branches/nope/protect`), { method: 'PUT', as: maintainer.token })).status).toBe(404);
    expect((await site.api(repo(`/branches/master/protect`), { method: 'PUT', as: developer.token })).status).toBe(403);
    // An admins-only unprotect level (ee) keeps maintainers and owners from removing the row.
    expect((await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'locked', unprotect_access_level: 60 } })).status).toBe(201);
    expect((await site.api(`${base}/locked`, { method: 'DELETE', as: owner.token })).status).toBe(403);
    expect((await site.api(`${base}/locked`, { method: 'DELETE' })).status).toBe(204);
    // SPEC "Errors": 412 when If-Unmodified-Since is older than the protection row; the row stays.
    expect((await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'kept' } })).status).toBe(201);
    const stale = await site.api(`${base}/kept`, { method: 'DELETE', headers: { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' }, as: maintainer.token });
    expect(stale).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect((await site.api(`${base}/kept`, { as: maintainer.token })).status).toBe(200);
    expect((await site.api(`${base}/kept`, { method: 'DELETE', headers: { 'if-unmodified-since': new Date(Date.now() + 3_600_000).toUTCString() }, as: maintainer.token })).status).toBe(204);
    const made = await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'temp-*' } });
    expect((await site.api(`${base}/${enc('temp-*')}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect(made.body.push_access_levels[0].access_level).toBe(40);
  });

  it('creates, lists, shows and deletes tags, lightweight and annotated, with release notes', async () => {
    const light = await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { tag_name: 'v1.0.0', ref: 'master' } });
    expect(light.status).toBe(201);
    const head = await bareRef('refs/heads/master');
    expect(light.body).toMatchObject({ name: 'v1.0.0', message: null, target: head, commit: { id: head }, release: null, protected: false });
    const annotated = await site.api(repo('/tags'), {
      method: 'POST',
      as: developer.token,
      body: { tag_name: 'v2.0.0', ref: 'master', message: 'Second release', release_description: '## Notes' },
    });
    expect(annotated.status).toBe(201);
    expect(annotated.body).toMatchObject({ name: 'v2.0.0', message: 'Second release', commit: { id: head }, release: { tag_name: 'v2.0.0', description: '## Notes' } });
    expect(annotated.body.target).not.toBe(head);
    expect((await runGit(['--git-dir', repositoryPath(site.dataDir, project.id), 'cat-file', '-t', 'refs/tags/v2.0.0'])).stdout.trim()).toBe('tag');

    const byName = await site.api(repo('/tags?order_by=name&sort=asc'), { as: reporter.token });
    expect(byName.body.map((tag: any) => tag.name)).toEqual(['base', 'v1.0.0', 'v2.0.0']);
    expect(byName.headers['x-total']).toBe('3');
    expect((await site.api(repo('/tags?search=v2'), { as: reporter.token })).body.map((tag: any) => tag.name)).toEqual(['v2.0.0']);
    expect((await site.api(repo(`/tags/${enc('v2.0.0')}`), { as: reporter.token })).body.release.description).toBe('## Notes');

    const release = await site.api(repo('/tags/v1.0.0/release'), { method: 'POST', as: developer.token, body: { description: 'first' } });
    expect(release.status).toBe(201);
    expect(release.body).toEqual({ tag_name: 'v1.0.0', description: 'first' });
    expect((await site.api(repo('/tags/v1.0.0/release'), { method: 'POST', as: developer.token, body: { description: 'again' } })).status).toBe(409);
    expect((await site.api(repo('/tags/v1.0.0/release'), { method: 'PUT', as: developer.token, body: { description: 'edited' } })).body.description).toBe('edited');
    expect((await site.api(repo('/tags/base/release'), { method: 'PUT', as: developer.token, body: { description: 'x' } })).status).toBe(404);
    expect((await site.api(repo('/tags/nope/release'), { method: 'POST', as: developer.token, body: { description: 'x' } })).body).toEqual({ message: '404 Tag Not Found' });

    // Tag names with slashes and dots round-trip through the encoded path too.
    const slashed = 'release/2024.1-ü';
    expect((await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { tag_name: slashed, ref: 'master' } })).status).toBe(201);
    expect((await site.api(repo(`/tags/${enc(slashed)}`), { as: reporter.token })).body.name).toBe(slashed);
    expect((await site.api(repo(`/tags/${enc(slashed)}/release`), { method: 'POST', as: developer.token, body: { description: 'd' } })).body.tag_name).toBe(slashed);
    expect((await site.api(repo(`/tags/${enc(slashed)}`), { method: 'DELETE', as: maintainer.token })).status).toBe(204);

    // A tag deleted over git leaves its release notes; a new tag of that name takes them over.
    expect((await site.api(repo('/tags'), { method: 'POST', as: maintainer.token, body: { tag_name: 'again', ref: 'master', release_description: 'old' } })).status).toBe(201);
    await git(['push', '--quiet', as(maintainer), ':refs/tags/again'], work);
    const recreated = await site.api(repo('/tags'), { method: 'POST', as: maintainer.token, body: { tag_name: 'again', ref: 'master', release_description: 'new' } });
    expect(recreated.status).toBe(201);
    expect(recreated.body.release).toEqual({ tag_name: 'again', description: 'new' });
    expect((await site.api(repo('/tags/again'), { method: 'DELETE', as: maintainer.token })).status).toBe(204);

    // Existing tags are maintainers' to change (GitLab's change_existing_tags).
    expect((await site.api(repo('/tags/v1.0.0'), { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(repo('/tags/v1.0.0'), { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await site.api(repo('/tags/v1.0.0'), { as: reporter.token })).status).toBe(404);
    expect((await site.api(repo('/tags/v1.0.0/release'), { method: 'PUT', as: developer.token, body: { description: 'x' } })).status).toBe(404);
  });

  it('answers the error rows of the tags API', async () => {
    expect((await site.api(repo('/tags'), { as: null })).status).toBe(404);
    expect((await site.api(repo('/tags'), { as: stranger.token })).status).toBe(404);
    expect((await site.api(repo('/tags'), { method: 'POST', as: reporter.token, body: { tag_name: 'r', ref: 'master' } })).status).toBe(403);
    expect((await site.api(repo('/tags'), { method: 'POST', as: null, body: { tag_name: 'r', ref: 'master' } })).status).toBe(401);
    const exists = await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { tag_name: 'v2.0.0', ref: 'master' } });
    expect(exists.body).toEqual({ message: 'Tag v2.0.0 already exists' });
    expect((await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { tag_name: 'bad..name', ref: 'master' } })).body).toEqual({ message: 'Tag name invalid' });
    expect((await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { tag_name: 'ok', ref: 'nowhere' } })).body).toEqual({ message: 'Target nowhere is invalid' });
    expect((await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { ref: 'master' } })).body).toEqual({ message: 'tag_name is missing' });
    expect((await site.api(repo('/tags?order_by=size'), { as: reporter.token })).status).toBe(400);
    expect((await site.api(repo('/tags/nope'), { as: reporter.token })).body).toEqual({ message: '404 Tag Not Found' });
    expect((await site.api(repo('/tags/nope'), { method: 'DELETE', as: maintainer.token })).status).toBe(404);
  });

  it('protects tags: creation by level over git and the API, never an update or a deletion', async () => {
    const base = `/projects/${project.id}/protected_tags`;
    const made = await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'rel-*' } });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({ name: 'rel-*', create_access_levels: [{ access_level: 40, access_level_description: 'Maintainers' }] });
    expect((await site.api(base, { method: 'POST', as: maintainer.token, body: { name: 'rel-*' } })).body).toEqual({ message: "Protected tag 'rel-*' already exists" });
    expect((await site.api(base, { as: developer.token })).status).toBe(403);
    expect((await site.api(`${base}/${enc('rel-*')}`, { as: maintainer.token })).body.name).toBe('rel-*');
    expect((await site.api(`${base}/nope`, { as: maintainer.token })).status).toBe(404);

    const api = await site.api(repo('/tags'), { method: 'POST', as: developer.token, body: { tag_name: 'rel-1', ref: 'master' } });
    expect(api.status).toBe(400);
    expect(api.body.message).toBe('You are not allowed to create this tag as it is protected.');
    await git(['tag', 'rel-2'], work);
    expect(await gitFails(['push', 'origin', 'refs/tags/rel-2'], work)).toContain('You are not allowed to create this tag as it is protected.');
    await git(['push', '--quiet', as(maintainer), 'refs/tags/rel-2'], work);
    expect(await bareRef('refs/tags/rel-2')).not.toBe('');
    expect((await site.api(repo('/tags/rel-2'), { as: developer.token })).body.protected).toBe(true);
    expect(await gitFails(['push', as(maintainer), ':refs/tags/rel-2'], work)).toContain('Protected tags cannot be deleted.');
    expect((await site.api(repo('/tags/rel-2'), { method: 'DELETE', as: maintainer.token })).body.message).toContain('Protected tags cannot be deleted.');
    // A developer may not move an existing tag, protected or not.
    await git(['tag', 'free-tag'], work);
    await git(['push', '--quiet', 'origin', 'refs/tags/free-tag'], work);
    await commitFile('tagmove.txt', 't\n');
    await git(['tag', '-f', 'free-tag'], work);
    expect(await gitFails(['push', '--force', 'origin', 'refs/tags/free-tag'], work)).toContain('You are not allowed to change existing tags on this project.');
    const stale = await site.api(`${base}/${enc('rel-*')}`, { method: 'DELETE', headers: { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' }, as: maintainer.token });
    expect(stale).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect((await site.api(`${base}/${enc('rel-*')}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await site.api(base, { as: maintainer.token })).body).toEqual([]);
  });

  it('deletes merged branches in the background (202), keeping the default and protected ones', async () => {
    const master = await bareRef('refs/heads/master');
    for (const branch of ['merged-a', 'merged-b', 'keep-protected']) {
      expect((await site.api(repo('/branches'), { method: 'POST', as: maintainer.token, body: { branch, ref: master } })).status).toBe(201);
    }
    await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: maintainer.token, body: { name: 'keep-protected' } });
    const unmerged = await site.api(repo('/commits'), {
      method: 'POST',
      as: developer.token,
      body: { branch: 'unmerged', start_branch: 'master', commit_message: 'ahead', actions: [{ action: 'create', file_path: 'ahead.txt', content: 'a' }] },
    });
    expect(unmerged.status).toBe(201);
    expect((await site.api(repo('/merged_branches'), { method: 'DELETE', as: reporter.token })).status).toBe(403);
    const accepted = await site.api(repo('/merged_branches'), { method: 'DELETE', as: developer.token });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ message: '202 Accepted' });
    const deadline = Date.now() + 10_000;
    while ((await bareRef('refs/heads/merged-b')) !== '' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await bareRef('refs/heads/merged-a')).toBe('');
    expect(await bareRef('refs/heads/merged-b')).toBe('');
    expect(await bareRef('refs/heads/keep-protected')).toBe(master);
    expect(await bareRef('refs/heads/master')).toBe(master);
    expect(await bareRef('refs/heads/unmerged')).not.toBe('');
  });
});
