import { describe, expect, it } from 'vitest';
import { pythonGitlabSuite } from '../helpers/python.js';

const notFound = (error: string, what: string) => ({ error, code: 404, message: `404 ${what} Not Found` });

describe('python-gitlab 3.12 against the Groups and Projects APIs', () => {
  const suite = pythonGitlabSuite('python_gitlab_projects.py', { timeoutMs: 30_000 });
  const section = suite.section;

  it('creates, lists, gets by id and path, saves, lists subgroups and deletes groups', async () => {
    const obs = await section('groups');
    const { parent_id: parentId, child_id: childId } = obs.created;
    const parentPath = obs.created.parent.path;
    expect(obs.created.parent).toEqual({
      path: parentPath,
      full_path: parentPath,
      visibility: 'public',
      description: 'first',
      parent_id: null,
      web_url: `${suite.site.url}/groups/${parentPath}`,
    });
    expect(obs.created.child).toEqual({ full_path: `${parentPath}/${parentPath.replace('pglparent', 'pglchild')}`, full_name: expect.stringMatching(/^Pgl Parent \w+ \/ Pgl Child$/), parent_id: parentId });

    expect(obs.list).toEqual({
      search: [parentId],
      search_both: [parentId, childId].sort((a, b) => a - b),
      skip: [parentId],
      by_path_desc: [parentPath, parentPath.replace('pglparent', 'pglchild')],
    });
    expect(obs.inside.path_with_namespace).toBe(`${parentPath}/${obs.inside.path_with_namespace.split('/')[1]}`);
    expect(obs.inside.listed).toEqual([obs.inside.id]);
    expect(obs.get).toEqual({
      by_id: parentPath,
      by_path: childId,
      detail_projects: [obs.inside.id],
      missing: notFound('GitlabGetError', 'Group'),
      missing_path: notFound('GitlabGetError', 'Group'),
    });
    expect(obs.updated).toEqual({ local: 'second', server: 'second', name: expect.stringMatching(/^Pgl Parent /) });
    expect(obs.subgroups).toEqual([childId]);
    // GITLAB-NOTES 2.1: a taken path is 400 with the Ruby-hash message.
    expect(obs.taken_path).toEqual({ error: 'GitlabCreateError', code: 400, message: 'Failed to save group {:path=>["has already been taken"]}' });

    expect(obs.after_child_delete).toEqual({ child: notFound('GitlabGetError', 'Group'), subgroups: [] });
    expect(obs.after_parent_delete).toEqual(notFound('GitlabGetError', 'Group'));
    expect(obs.project_after_parent_delete).toEqual(notFound('GitlabGetError', 'Project'));
    expect(obs.delete_again).toEqual(notFound('GitlabDeleteError', 'Group'));
  });

  it('adds, lists, updates and removes group members', async () => {
    const obs = await section('group_members');
    expect(obs.created).toEqual({ id: obs.user_id, username: expect.stringMatching(/^pglgm/), access_level: 30 });
    // The creator is an owner member (GITLAB-NOTES 2.1).
    expect(obs.listed).toEqual([
      [obs.root_id, 50],
      [obs.user_id, 30],
    ]);
    expect(obs.updated).toBe(40);
    expect(obs.duplicate).toEqual({ error: 'GitlabCreateError', code: 409, message: 'Member already exists' });
    expect(obs.after_delete).toEqual([[obs.root_id, 50]]);
    expect(obs.get_deleted).toEqual(notFound('GitlabGetError', 'Member'));
  });

  it('creates projects from a dict and from kwargs, lists, pages, gets, saves and deletes them', async () => {
    const obs = await section('projects');
    const [dictId, kwargsId, internalId, extra0, extra1] = obs.mine;
    expect(obs.created.dict).toEqual({
      name: expect.stringMatching(/^pgldict/),
      path: obs.created.dict.name,
      path_with_namespace: `root/${obs.created.dict.name}`,
      visibility: 'private',
      description: 'made from a dict',
      tag_list: ['a', 'b'],
      has_permissions: false, // create answers Project, not ProjectWithAccess (GITLAB-NOTES 2.2)
    });
    expect(obs.created.kwargs).toEqual({ name: expect.stringMatching(/^pglkw/), visibility: 'public' });
    expect(obs.created.theirs_namespace).toBe(obs.created.other_username);

    const all = [...obs.mine, obs.theirs].sort((a: number, b: number) => a - b);
    expect(obs.list).toEqual({
      owned: obs.mine,
      search_all: all,
      search_one: [dictId],
      public: [kwargsId, obs.theirs],
      internal: [internalId],
      private: [dictId, extra0, extra1],
    });
    // Link rel="next" followed with per_page=2, newest first (created_at desc), no page lost or repeated.
    expect(obs.pages).toEqual({ total: 6, total_pages: 3, per_page: 2, lazily: [...all].reverse(), eagerly: [...all].reverse() });

    // The creator of a personal project is a master (40) member of it (GITLAB-NOTES 2.2).
    expect(obs.get).toEqual({
      by_id: `root/${obs.created.dict.name}`,
      permissions: { project_access: { access_level: 40, notification_level: 3 }, group_access: null },
      by_path: dictId,
      theirs_by_path: obs.theirs,
      missing: notFound('GitlabGetError', 'Project'),
      missing_path: notFound('GitlabGetError', 'Project'),
    });
    expect(obs.updated).toEqual({ local: 'changed by save', server: 'changed by save', issues_enabled: false });
    expect(obs.taken_name).toMatchObject({ error: 'GitlabCreateError', code: 400 });
    expect(obs.taken_name.message).toMatch(/has already been taken/);
    expect(obs.deleted).toEqual({
      by_manager: notFound('GitlabGetError', 'Project'),
      by_object: notFound('GitlabGetError', 'Project'),
      again: notFound('GitlabDeleteError', 'Project'),
    });
  });

  it('stars, archives and shares projects', async () => {
    const obs = await section('project_actions');
    expect(obs.star).toEqual({ count: 1, starred: true });
    // A second star is 304, which python-gitlab raises as GitlabCreateError (GITLAB-NOTES W15).
    expect(obs.star_again).toMatchObject({ error: 'GitlabCreateError', code: 304 });
    expect(obs.unstar).toEqual({ count: 0, server: 0 });
    expect(obs.unstar_again).toMatchObject({ error: 'GitlabDeleteError', code: 304 });

    expect(obs.archive).toEqual({ local: true, server: true, listed: false, listed_archived: true });
    expect(obs.unarchive).toEqual({ local: false, server: false });

    expect(obs.shared).toEqual([{ group_id: obs.group.id, group_name: obs.group.name, group_access_level: 30 }]);
    expect(obs.share_again).toMatchObject({ error: 'GitlabCreateError', code: 409 });
    // Project shares take 10-40 only (GITLAB-NOTES 1.5).
    expect(obs.share_owner_level).toEqual({ error: 'GitlabCreateError', code: 400, message: 'group_access does not have a valid value' });
    expect(obs.unshared).toEqual([]);
    expect(obs.unshare_again).toEqual(notFound('GitlabDeleteError', 'Group Link'));
  });

  it('creates, lists, gets, saves and deletes project hooks', async () => {
    const obs = await section('hooks');
    expect(obs.created).toEqual({
      url: 'http://hooks.example.com/one',
      project_id: obs.project_id,
      push_events: true,
      issues_events: true,
      wiki_page_events: true,
      merge_requests_events: false,
      enable_ssl_verification: true,
      has_token: false,
    });
    expect(obs.listed).toEqual(['http://hooks.example.com/one']);
    expect(obs.updated).toEqual({ url: 'http://hooks.example.com/two', merge_requests_events: true, issues_events: true });
    expect(obs.after_delete).toEqual([]);
    expect(obs.get_deleted).toEqual(notFound('GitlabGetError', 'Project Hook'));
    expect(obs.missing_url).toMatchObject({ error: 'GitlabHttpError', code: 400 });
    expect(obs.missing_url.message).toMatch(/url/);
  });

  it('adds, lists, updates and removes project members', async () => {
    const obs = await section('project_members');
    expect(obs.created).toEqual({ id: obs.user_id, username: expect.stringMatching(/^pglpm/), access_level: 30 });
    expect(obs.listed).toEqual([
      [obs.root_id, 40],
      [obs.user_id, 30],
    ]);
    expect(obs.updated).toBe(20);
    expect(obs.users).toEqual([obs.created.username]);
    expect(obs.owner_level).toEqual({ error: 'GitlabCreateError', code: 400, message: 'access_level does not have a valid value' });
    expect(obs.after_delete).toEqual([[obs.root_id, 40]]);
    expect(obs.get_deleted).toEqual(notFound('GitlabGetError', 'Member'));
    expect(obs.sees_as_member).toBe(obs.project_id);
    expect(obs.stranger).toEqual(notFound('GitlabGetError', 'Project'));
  });

  it('forks a project and waits for the import to finish', async () => {
    const obs = await section('fork');
    expect(obs.fork).toEqual({
      id: expect.any(Number),
      import_status: 'finished',
      namespace: obs.root_username,
      path: expect.stringMatching(/^pglsrc/),
      forked_from_project: obs.source_id,
    });
    expect(obs.fork_in_group).toBe(obs.group_id);
    expect(obs.forks).toHaveLength(2);
    expect(obs.forks).toContain(obs.fork.id);
    expect(obs.forks_count).toBe(2);
    // GITLAB-NOTES 2.2: a fork-service error (name taken) is 409; an unknown namespace 404 `Target Namespace`.
    expect(obs.fork_again).toMatchObject({ error: 'GitlabCreateError', code: 409 });
    expect(obs.missing_namespace).toEqual(notFound('GitlabCreateError', 'Target Namespace'));
  });

  it('uploads files and answers alt, url and markdown', async () => {
    const obs = await section('upload');
    // GITLAB-NOTES 2.2: non-images [alt](url) with the file name; images ![alt](url) without the extension.
    expect(obs.text.alt).toBe('notes.txt');
    expect(obs.text.url).toMatch(/^\/uploads\/[0-9a-f]{32}\/notes\.txt$/);
    expect(obs.text.markdown).toBe(`[notes.txt](${obs.text.url})`);
    expect(obs.image.alt).toBe('pic');
    expect(obs.image.url).toMatch(/^\/uploads\/[0-9a-f]{32}\/pic\.png$/);
    expect(obs.image.markdown).toBe(`![pic](${obs.image.url})`);
    // The url is relative to the project: {web_url}{url} serves the file.
    expect(obs.fetched).toEqual({ status: 200, body: 'uploaded by python-gitlab\n' });
  });
});
