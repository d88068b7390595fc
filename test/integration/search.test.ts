import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const ids = (body: { id: number }[]) => body.map((row) => row.id);

describe('search', () => {
  let site: TestSite;
  let owner: TestUser;
  let reporter: TestUser;
  let guestAuthor: TestUser;
  let stranger: TestUser;
  let group: TestGroup;
  let publicProject: any;
  let privateProject: any;
  let issues: Record<string, any>;

  const issue = async (project: any, body: Record<string, unknown>, as?: string) => {
    const response = await site.api(`/projects/${project.id}/issues`, { method: 'POST', body, as });
    expect(response.status).toBe(201);
    return response.body;
  };

  beforeAll(async () => {
    site = await startSite();
    [owner, reporter, guestAuthor, stranger] = [await createUser(site, { name: 'Zebra Owner' }), await createUser(site), await createUser(site), await createUser(site)];
    group = await createGroup(site, { visibility: 'public' });
    await addMember(site, 'groups', group.id, owner, 50);
    publicProject = await createProject(site, { namespace_id: group.id, visibility: 'public', name: 'Pelican Tracker', initialize_with_readme: true });
    privateProject = await createProject(site, { namespace_id: group.id, visibility: 'private', name: 'Pelican Vault' });
    await addMember(site, 'projects', publicProject.id, reporter, 20);
    await addMember(site, 'projects', publicProject.id, guestAuthor, 10);
    issues = {
      open: await issue(publicProject, { title: 'Crash in the pelican parser', description: 'stack trace attached' }),
      closed: await issue(publicProject, { title: 'Pelican feathers missing', description: 'nothing' }),
      confidential: await issue(publicProject, { title: 'Pelican secret leak', confidential: true }),
      guestConfidential: await issue(publicProject, { title: 'Pelican guest report' }, guestAuthor.token),
      hidden: await issue(privateProject, { title: 'Pelican private plan' }),
    };
    await site.api(`/projects/${publicProject.id}/issues/${issues.closed.iid}`, { method: 'PUT', body: { state_event: 'close' } });
    await site.api(`/projects/${publicProject.id}/issues/${issues.guestConfidential.iid}`, { method: 'PUT', body: { confidential: true } });
  });
  afterAll(() => site.stop());

  const search = (path: string, as: string | null = stranger.token) => site.api(path, { as });

  describe('parameters and errors', () => {
    it('answers 401 anonymous, 400 without search or scope or with an unknown scope, 404 for groups and projects the caller cannot see', async () => {
      expect((await search('/search?scope=issues&search=pelican', null)).status).toBe(401);
      expect(await search('/search?scope=issues')).toMatchObject({ status: 400, body: { message: 'search is missing' } });
      expect(await search('/search?search=pelican')).toMatchObject({ status: 400, body: { message: 'scope is missing' } });
      expect(await search('/search?scope=blobs&search=pelican')).toMatchObject({ status: 400, body: { message: 'scope does not have a valid value' } });
      expect((await search(`/groups/${group.id}/search?scope=notes&search=pelican`)).status).toBe(400);
      expect((await search(`/projects/${publicProject.id}/search?scope=projects&search=pelican`)).status).toBe(400);
      expect((await search(`/projects/${privateProject.id}/search?scope=issues&search=pelican`)).status).toBe(404);
      expect((await search('/groups/999999/search?scope=issues&search=pelican')).status).toBe(404);
      expect((await search('/projects/999999/search?scope=issues&search=pelican')).status).toBe(404);
      expect((await search('/search?scope=issues&search=pelican&state=nope')).status).toBe(400);
      expect((await search('/search?scope=issues&search=pelican&per_page=x')).status).toBe(400);
    });

    it('answers snippet_titles with an empty page', async () => {
      const response = await search('/search?scope=snippet_titles&search=pelican');
      expect(response).toMatchObject({ status: 200, body: [] });
      expect(response.headers['x-total']).toBe('0');
    });
  });

  describe('visibility', () => {
    it('never shows confidential issues to non-members or private projects to outsiders', async () => {
      for (const path of ['/search', `/groups/${group.id}/search`, `/projects/${publicProject.id}/search`]) {
        const found = await search(`${path}?scope=issues&search=pelican`);
        expect(found.status).toBe(200);
        expect(ids(found.body).sort()).toEqual([issues.open.id, issues.closed.id].sort());
      }
      const projects = await search('/search?scope=projects&search=pelican');
      expect(ids(projects.body)).toEqual([publicProject.id]);
      const groupProjects = await search(`/groups/${group.id}/search?scope=projects&search=vault`);
      expect(groupProjects.body).toEqual([]);
    });

    it('shows a guest their own confidential issue, reporters all of them, admins everything', async () => {
      expect(ids((await search('/search?scope=issues&search=pelican', guestAuthor.token)).body).sort()).toEqual(
        [issues.open.id, issues.closed.id, issues.guestConfidential.id].sort(),
      );
      expect(ids((await search(`/projects/${publicProject.id}/search?scope=issues&search=pelican`, reporter.token)).body)).toHaveLength(4);
      const admin = await site.api('/search?scope=issues&search=pelican');
      expect(ids(admin.body)).toContain(issues.hidden.id);
      expect(ids((await search('/search?scope=issues&search=pelican&confidential=true', reporter.token)).body).sort()).toEqual(
        [issues.confidential.id, issues.guestConfidential.id].sort(),
      );
    });
  });

  describe('issues', () => {
    it('matches every word anywhere in title or description, case-insensitively, newest first, paged with GitLab headers', async () => {
      const found = await search('/search?scope=issues&search=PELI%20trace');
      expect(ids(found.body)).toEqual([issues.open.id]);
      expect(found.body[0]).toMatchObject({ iid: issues.open.iid, project_id: publicProject.id, title: 'Crash in the pelican parser' });
      const paged = await search('/search?scope=issues&search=pelican&per_page=1&page=2');
      expect(paged.headers).toMatchObject({ 'x-total': '2', 'x-total-pages': '2', 'x-page': '2', 'x-per-page': '1', 'x-prev-page': '1', 'x-next-page': '' });
      expect(ids(paged.body)).toEqual([issues.open.id]);
      expect(ids((await search('/search?scope=issues&search=pelican&state=closed')).body)).toEqual([issues.closed.id]);
      expect(ids((await search('/search?scope=issues&search=pelican&sort=asc')).body)).toEqual([issues.open.id, issues.closed.id]);
    });

    it('keeps the index in step with edits and deletes', async () => {
      const later = await issue(publicProject, { title: 'Walrus sighting' });
      expect(ids((await search('/search?scope=issues&search=walrus')).body)).toEqual([later.id]);
      await site.api(`/projects/${publicProject.id}/issues/${later.iid}`, { method: 'PUT', body: { title: 'Narwhal sighting' } });
      expect((await search('/search?scope=issues&search=walrus')).body).toEqual([]);
      expect(ids((await search('/search?scope=issues&search=narwhal')).body)).toEqual([later.id]);
      await site.api(`/projects/${publicProject.id}/issues/${later.iid}`, { method: 'DELETE' });
      expect((await search('/search?scope=issues&search=narwhal')).body).toEqual([]);
    });

    it('treats words shorter than three characters as an exact title match', async () => {
      const short = await issue(publicProject, { title: 'ox' });
      expect(ids((await search('/search?scope=issues&search=OX')).body)).toEqual([short.id]);
    });
  });

  describe('other scopes', () => {
    it('searches merge requests, milestones, users and notes', async () => {
      await site.api(`/projects/${publicProject.id}/repository/branches`, { method: 'POST', body: { branch: 'feature', ref: publicProject.default_branch } });
      const mr = await site.api(`/projects/${publicProject.id}/merge_requests`, {
        method: 'POST',
        body: { source_branch: 'feature', target_branch: publicProject.default_branch, title: 'Teach the albatross to fly' },
      });
      expect(mr.status).toBe(201);
      const foundMr = await search('/search?scope=merge_requests&search=albatross');
      expect(foundMr.body).toEqual([expect.objectContaining({ id: mr.body.id, iid: mr.body.iid })]);
      expect((await search(`/projects/${publicProject.id}/search?scope=merge_requests&search=albatross&state=merged`)).body).toEqual([]);

      const milestone = await site.api(`/projects/${publicProject.id}/milestones`, { method: 'POST', body: { title: 'Release cormorant' } });
      const privateMilestone = await site.api(`/projects/${privateProject.id}/milestones`, { method: 'POST', body: { title: 'Hidden cormorant' } });
      const groupMilestone = await site.api(`/groups/${group.id}/milestones`, { method: 'POST', body: { title: 'Group cormorant' } });
      expect(ids((await search('/search?scope=milestones&search=cormorant')).body).sort()).toEqual([milestone.body.id, groupMilestone.body.id].sort());
      expect(ids((await search(`/groups/${group.id}/search?scope=milestones&search=cormorant`)).body)).not.toContain(privateMilestone.body.id);
      expect(ids((await site.api(`/groups/${group.id}/search?scope=milestones&search=cormorant`)).body)).toContain(privateMilestone.body.id);
      expect(ids((await search(`/projects/${publicProject.id}/search?scope=milestones&search=cormorant`)).body)).toEqual([milestone.body.id]);

      const users = await search('/search?scope=users&search=zebra');
      expect(users.body).toEqual([expect.objectContaining({ id: owner.id, username: owner.username })]);
      expect(ids((await search(`/projects/${publicProject.id}/search?scope=users&search=user`)).body)).not.toContain(stranger.id);
      expect(ids((await search(`/projects/${publicProject.id}/search?scope=users&search=user`)).body)).toContain(reporter.id);

      const note = await site.api(`/projects/${publicProject.id}/issues/${issues.open.iid}/notes`, { method: 'POST', body: { body: 'The flamingo did it' } });
      const secretNote = await site.api(`/projects/${publicProject.id}/issues/${issues.confidential.iid}/notes`, { method: 'POST', body: { body: 'The flamingo again' } });
      const notes = await search(`/projects/${publicProject.id}/search?scope=notes&search=flamingo`);
      expect(notes.body).toEqual([expect.objectContaining({ id: note.body.id, noteable_type: 'Issue', noteable_iid: issues.open.iid, body: 'The flamingo did it' })]);
      expect(ids((await search(`/projects/${publicProject.id}/search?scope=notes&search=flamingo`, reporter.token)).body)).toContain(secretNote.body.id);
    });
  });

  describe('code', () => {
    it('finds blobs and commits in the repository (default branch or ref), and wiki pages', async () => {
      const commit = await site.api(`/projects/${publicProject.id}/repository/commits`, {
        method: 'POST',
        body: {
          branch: publicProject.default_branch,
          commit_message: 'Add the heron module',
          actions: [
            { action: 'create', file_path: 'lib/heron.rb', content: 'line one\nline two\nclass Heron\n  def fly; end\nend\nlast\n' },
            { action: 'create', file_path: 'docs/other.md', content: 'nothing to see\n' },
          ],
        },
      });
      expect(commit.status).toBe(201);
      const blobs = await search(`/projects/${publicProject.id}/search?scope=blobs&search=heron`);
      expect(blobs.status).toBe(200);
      expect(blobs.body).toEqual([
        {
          basename: 'lib/heron',
          data: 'line one\nline two\nclass Heron\n  def fly; end\nend\n',
          path: 'lib/heron.rb',
          filename: 'lib/heron.rb',
          id: null,
          ref: publicProject.default_branch,
          startline: 1,
          project_id: publicProject.id,
        },
      ]);
      expect(blobs.headers['x-total']).toBe('1');
      expect((await search(`/projects/${publicProject.id}/search?scope=blobs&search=heron&ref=feature`)).body).toEqual([]);
      expect((await search(`/projects/${publicProject.id}/search?scope=blobs&search=heron&ref=no-such-ref`)).body).toEqual([]);

      const commits = await search(`/projects/${publicProject.id}/search?scope=commits&search=HERON`);
      expect(commits.body).toEqual([expect.objectContaining({ id: commit.body.id, title: 'Add the heron module', project_id: publicProject.id })]);

      const wiki = await site.api(`/projects/${publicProject.id}/wikis`, { method: 'POST', body: { title: 'Birds', content: 'All about the heron' } });
      expect(wiki.status).toBe(201);
      const pages = await search(`/projects/${publicProject.id}/search?scope=wiki_blobs&search=heron`);
      expect(pages.body).toEqual([expect.objectContaining({ path: 'Birds.md', data: 'All about the heron\n', startline: 1, project_id: publicProject.id })]);

      // Private code: the project 404s to outsiders; a project member without download_code gets nothing.
      expect((await search(`/projects/${privateProject.id}/search?scope=blobs&search=heron`)).status).toBe(404);
    });
  });
});
