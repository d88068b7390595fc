import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBoard } from '../../src/services/planning/boards.js';
import { createdBy, createGroup, createGroupTeam, createProject, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Issue boards (issue 16, items 1-3; SPEC: Issue boards; GITLAB-NOTES 2.4): project boards with
 * their hidden backlog and closed lists, label lists (create, move, delete, their issues), group
 * boards, the ee edition's routes and every error row (400 in render_api_error's shape, 401, 403,
 * 404), and the ce edition, where creating and deleting boards and group boards are unknown routes.
 */
let site: TestSite;
let owner: TestUser, reporter: TestUser, guest: TestUser, outsider: TestUser;
let group: any;
let subgroup: any;
let project: any;
let subproject: any;
let otherProject: any;

async function post(path: string, body: Record<string, unknown>, as: string | null = owner.token) {
  return site.api(path, { method: 'POST', body, as });
}

const created = (path: string, body: Record<string, unknown>, as: string | null = owner.token) => createdBy(site, path, body, as);

const boardsPath = (projectId = project.id) => `/projects/${projectId}/boards`;

beforeAll(async () => {
  site = await startSite();
  ({ owner, reporter, guest, outsider, group } = await createGroupTeam(site, async ({ group, owner, outsider }) => {
    subgroup = await createGroup(site, { parent_id: group.id, visibility: 'private' }, owner.token);
    project = await createProject(site, { namespace_id: group.id }, owner.token);
    subproject = await createProject(site, { namespace_id: subgroup.id }, owner.token);
    otherProject = await createProject(site, {}, outsider.token);
  }));
});
afterAll(() => site.stop());

describe('project boards', () => {
  it('a fresh project has no board', async () => {
    const response = await site.api(boardsPath(), { as: guest.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    expect(response.headers['x-total']).toBe('0');
  });

  it('creates a board (ee) with the SPEC project shape, empty visible lists and the ee scoping fields', async () => {
    const board = await created(boardsPath(), { name: 'Development' }, reporter.token);
    expect(board).toEqual({
      id: expect.any(Number),
      name: 'Development',
      project: {
        id: project.id,
        name: project.name,
        name_with_namespace: project.name_with_namespace,
        path: project.path,
        path_with_namespace: project.path_with_namespace,
        http_url_to_repo: project.http_url_to_repo,
        web_url: project.web_url,
      },
      milestone: null,
      lists: [],
      group: null,
      assignee: null,
      labels: [],
      weight: null,
    });
    // The hidden backlog and closed lists exist, and never show.
    const hidden = site.site.db.prepare('SELECT list_type FROM board_lists WHERE board_id = ? ORDER BY id').pluck().all(board.id);
    expect(hidden).toEqual(['backlog', 'closed']);
    expect((await site.api(`${boardsPath()}/${board.id}/lists`, { as: guest.token })).body).toEqual([]);
    for (const id of site.site.db.prepare('SELECT id FROM board_lists WHERE board_id = ?').pluck().all(board.id) as number[]) {
      expect(await site.api(`${boardsPath()}/${board.id}/lists/${id}`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    }
    expect((await site.api(`${boardsPath()}/${board.id}`, { as: guest.token })).body).toEqual(board);
  });

  it('takes the scoping fields milestone_id, assignee_id, labels and weight on create', async () => {
    const milestone = await created(`/projects/${project.id}/milestones`, { title: 'v1' });
    await created(`/projects/${project.id}/labels`, { name: 'scope', color: '#00ff00' });
    const board = await created(boardsPath(), { name: 'Scoped', milestone_id: milestone.id, assignee_id: reporter.id, labels: 'scope', weight: 3 });
    expect(board).toMatchObject({
      milestone: { id: milestone.id, title: 'v1' },
      assignee: { id: reporter.id, username: reporter.username },
      labels: [{ name: 'scope', color: '#00ff00' }],
      weight: 3,
    });
    expect(await post(boardsPath(), { name: 'x', milestone_id: 999999 })).toMatchObject({ status: 404, body: { message: '404 Milestone Not Found' } });
    expect(await post(boardsPath(), { name: 'x', labels: 'nope' })).toMatchObject({ status: 404, body: { message: '404 Label Not Found' } });
    expect(await post(boardsPath(), { name: 'x', weight: -1 })).toMatchObject({ status: 400 });
  });

  it('lists boards paginated, and refuses anonymous callers (401), outsiders of the private project (404), guests creating (403), a missing name (400)', async () => {
    const list = await site.api(`${boardsPath()}?per_page=1`, { as: guest.token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(Number(list.headers['x-total'])).toBeGreaterThanOrEqual(2);
    expect(await site.api(boardsPath(), { as: null })).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });
    expect(await site.api(boardsPath(), { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await post(boardsPath(), { name: 'x' }, guest.token)).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect(await post(boardsPath(), { name: 'x' }, null)).toMatchObject({ status: 401 });
    expect(await post(boardsPath(), { name: 'x' }, outsider.token)).toMatchObject({ status: 404 });
    expect(await post(boardsPath(), {})).toMatchObject({ status: 400, body: { message: 'name is missing' } });
  });

  it('answers 404 Board for a board of another project or none, 400 for a non-numeric id', async () => {
    const foreign = await created(boardsPath(otherProject.id), { name: 'Theirs' }, outsider.token);
    expect(await site.api(`${boardsPath()}/${foreign.id}`)).toMatchObject({ status: 404, body: { message: '404 Board Not Found' } });
    expect(await site.api(`${boardsPath()}/999999`)).toMatchObject({ status: 404, body: { message: '404 Board Not Found' } });
    expect(await site.api(`${boardsPath()}/abc`)).toMatchObject({ status: 400 });
    expect(await site.api(`${boardsPath(otherProject.id)}/${foreign.id}`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('deletes a board (ee, reporters and up) with its lists', async () => {
    const board = await created(boardsPath(), { name: 'Doomed' });
    const label = await created(`/projects/${project.id}/labels`, { name: 'doomed', color: '#123456' });
    await created(`${boardsPath()}/${board.id}/lists`, { label_id: label.id });
    expect(await site.api(`${boardsPath()}/${board.id}`, { method: 'DELETE', as: guest.token })).toMatchObject({ status: 403 });
    expect(await site.api(`${boardsPath()}/${board.id}`, { method: 'DELETE', as: null })).toMatchObject({ status: 401 });
    expect(await site.api(`${boardsPath()}/${board.id}`, { method: 'DELETE', as: outsider.token })).toMatchObject({ status: 404 });
    expect((await site.api(`${boardsPath()}/${board.id}`, { method: 'DELETE', as: reporter.token })).status).toBe(204);
    expect(await site.api(`${boardsPath()}/${board.id}`)).toMatchObject({ status: 404 });
    expect(site.site.db.prepare('SELECT count(*) FROM board_lists WHERE board_id = ?').pluck().get(board.id)).toBe(0);
  });
});

describe('board lists', () => {
  let board: any;
  let bug: any;
  let feature: any;
  let docs: any;
  let groupLabel: any;
  const listsPath = () => `${boardsPath()}/${board.id}/lists`;

  beforeAll(async () => {
    board = await created(boardsPath(), { name: 'Lists' });
    bug = await created(`/projects/${project.id}/labels`, { name: 'bug', color: '#d9534f' });
    feature = await created(`/projects/${project.id}/labels`, { name: 'feature', color: '#5cb85c', description: 'New things' });
    docs = await created(`/projects/${project.id}/labels`, { name: 'docs', color: '#428bca' });
    groupLabel = await created(`/groups/${group.id}/labels`, { name: 'group-wide', color: '#f0ad4e' });
  });

  it('creates lists from project labels and ancestor-group labels, at positions 0, 1, 2...', async () => {
    const first = await created(listsPath(), { label_id: bug.id }, reporter.token);
    expect(first).toEqual({ id: expect.any(Number), label: { id: bug.id, name: 'bug', color: '#d9534f', description: null, text_color: '#FFFFFF' }, position: 0 });
    expect(await created(listsPath(), { label_id: groupLabel.id })).toMatchObject({ label: { id: groupLabel.id, name: 'group-wide' }, position: 1 });
    expect(await created(listsPath(), { label_id: feature.id })).toMatchObject({ label: { name: 'feature', description: 'New things' }, position: 2 });
    expect(await created(listsPath(), { label_id: docs.id })).toMatchObject({ position: 3 });
    const lists = await site.api(listsPath(), { as: guest.token });
    expect(lists.body.map((list: any) => [list.label.name, list.position])).toEqual([['bug', 0], ['group-wide', 1], ['feature', 2], ['docs', 3]]);
    expect((await site.api(`${boardsPath()}/${board.id}`)).body.lists.map((list: any) => list.label.name)).toEqual(['bug', 'group-wide', 'feature', 'docs']);
    expect(await site.api(`${listsPath()}/${first.id}`, { as: guest.token })).toMatchObject({ status: 200, body: first });
  });

  it("refuses an unknown or foreign label with 400 `Label not found!` in GitLab's render_api_error shape, before authorizing", async () => {
    const foreign = await created(`/projects/${otherProject.id}/labels`, { name: 'theirs', color: '#000000' }, outsider.token);
    const subLabel = await created(`/groups/${subgroup.id}/labels`, { name: 'below', color: '#000000' });
    for (const labelId of [999999, foreign.id, subLabel.id]) {
      expect(await post(listsPath(), { label_id: labelId })).toMatchObject({ status: 400, body: { message: { error: 'Label not found!' } } });
    }
    expect(await post(listsPath(), { label_id: 999999 }, guest.token)).toMatchObject({ status: 400, body: { message: { error: 'Label not found!' } } });
  });

  it('refuses a duplicate label (400), a missing label_id (400), guests (403), anonymous callers (401), outsiders (404), an unknown board (404)', async () => {
    expect(await post(listsPath(), { label_id: bug.id })).toMatchObject({ status: 400, body: { message: { label: ['has already been taken'] } } });
    expect(await post(listsPath(), {})).toMatchObject({ status: 400, body: { message: 'label_id is missing' } });
    expect(await post(listsPath(), { label_id: 'x' })).toMatchObject({ status: 400 });
    const spare = await created(`/projects/${project.id}/labels`, { name: 'spare', color: '#111111' });
    expect(await post(listsPath(), { label_id: spare.id }, guest.token)).toMatchObject({ status: 403 });
    expect(await post(listsPath(), { label_id: spare.id }, null)).toMatchObject({ status: 401 });
    expect(await post(listsPath(), { label_id: spare.id }, outsider.token)).toMatchObject({ status: 404 });
    expect(await site.api(listsPath(), { as: outsider.token })).toMatchObject({ status: 404 });
    expect(await site.api(listsPath(), { as: null })).toMatchObject({ status: 401 });
    expect(await post(`${boardsPath()}/999999/lists`, { label_id: spare.id })).toMatchObject({ status: 404, body: { message: '404 Board Not Found' } });
    expect(await site.api(`${listsPath()}/999999`)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
  });

  const order = async () => (await site.api(listsPath())).body.map((list: any) => `${list.label.name}:${list.position}`);
  const listOf = async (name: string) => (await site.api(listsPath())).body.find((list: any) => list.label.name === name);
  const move = (list: any, position: unknown, as: string | null = reporter.token) => site.api(`${listsPath()}/${list.id}`, { method: 'PUT', body: { position }, as });

  it('moves a list with PUT position, shifting the others and clamping the position', async () => {
    expect(await move(await listOf('docs'), 0)).toMatchObject({ status: 200, body: { label: { name: 'docs' }, position: 0 } });
    expect(await order()).toEqual(['docs:0', 'bug:1', 'group-wide:2', 'feature:3']);
    expect(await move(await listOf('docs'), 2)).toMatchObject({ status: 200, body: { position: 2 } });
    expect(await order()).toEqual(['bug:0', 'group-wide:1', 'docs:2', 'feature:3']);
    expect(await move(await listOf('bug'), 99)).toMatchObject({ status: 200, body: { position: 3 } });
    expect(await order()).toEqual(['group-wide:0', 'docs:1', 'feature:2', 'bug:3']);
    expect(await move(await listOf('feature'), -5)).toMatchObject({ status: 200, body: { position: 0 } });
    expect(await order()).toEqual(['feature:0', 'group-wide:1', 'docs:2', 'bug:3']);
    expect(await move(await listOf('docs'), 2)).toMatchObject({ status: 200, body: { position: 2 } });
    expect(await order()).toEqual(['feature:0', 'group-wide:1', 'docs:2', 'bug:3']);
  });

  it('refuses a move without a position (400), by guests (403), anonymous callers (401), outsiders (404), of an unknown list (404)', async () => {
    const docsList = await listOf('docs');
    expect(await site.api(`${listsPath()}/${docsList.id}`, { method: 'PUT', body: {}, as: reporter.token })).toMatchObject({ status: 400, body: { message: 'position is missing' } });
    expect(await move(docsList, 'first')).toMatchObject({ status: 400 });
    expect(await move(docsList, 0, guest.token)).toMatchObject({ status: 403 });
    expect(await move(docsList, 0, null)).toMatchObject({ status: 401 });
    expect(await move(docsList, 0, outsider.token)).toMatchObject({ status: 404 });
    expect(await move({ id: 999999 }, 0)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    expect(await order()).toEqual(['feature:0', 'group-wide:1', 'docs:2', 'bug:3']);
  });

  it('deletes a list for project owners and admins only (decision 8), renumbering the lists after it', async () => {
    const groupList = await listOf('group-wide');
    const remove = (list: any, as: string | null) => site.api(`${listsPath()}/${list.id}`, { method: 'DELETE', as });
    expect(await remove(groupList, reporter.token)).toMatchObject({ status: 403 });
    expect(await remove(groupList, guest.token)).toMatchObject({ status: 403 });
    expect(await remove(groupList, null)).toMatchObject({ status: 401 });
    expect(await remove(groupList, outsider.token)).toMatchObject({ status: 404 });
    expect((await remove(groupList, owner.token)).status).toBe(204);
    expect(await order()).toEqual(['feature:0', 'docs:1', 'bug:2']);
    expect((await remove(await listOf('feature'), undefined as unknown as string)).status).toBe(204); // root, an admin
    expect(await order()).toEqual(['docs:0', 'bug:1']);
    expect(await remove(groupList, owner.token)).toMatchObject({ status: 404, body: { message: '404 Not found' } });
    // The label's list can be made again, at the end.
    expect(await created(listsPath(), { label_id: groupLabel.id })).toMatchObject({ position: 2 });
  });

  it('a deleted label takes its lists with it and closes the gap', async () => {
    const temp = await created(`/projects/${project.id}/labels`, { name: 'temporary', color: '#222222' });
    await created(listsPath(), { label_id: temp.id });
    await move(await listOf('temporary'), 0);
    expect(await order()).toEqual(['temporary:0', 'docs:1', 'bug:2', 'group-wide:3']);
    expect((await site.api(`/projects/${project.id}/labels/temporary`, { method: 'DELETE' })).status).toBe(204);
    expect(await order()).toEqual(['docs:0', 'bug:1', 'group-wide:2']);
  });

  it('a promoted label keeps its lists, now on the group label', async () => {
    const local = await created(`/projects/${project.id}/labels`, { name: 'promoted', color: '#333333' });
    const list = await created(listsPath(), { label_id: local.id });
    const promoted = await site.api(`/projects/${project.id}/labels/promoted/promote`, { method: 'PUT' });
    expect(promoted.status, promoted.text).toBeLessThan(300);
    expect((await site.api(`${listsPath()}/${list.id}`)).body).toMatchObject({ label: { id: promoted.body.id, name: 'promoted' }, position: list.position });
    expect((await site.api(`${listsPath()}/${list.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it("lists a list's open issues that carry its label, by relative_position, hiding confidential issues from those who may not read them", async () => {
    const issue = async (title: string, labels: string, extra: Record<string, unknown> = {}) => created(`/projects/${project.id}/issues`, { title, labels, ...extra });
    const a = await issue('a', 'bug');
    const b = await issue('b', 'bug,docs');
    const c = await issue('c', 'bug', { confidential: true });
    const d = await issue('d', 'bug');
    const closed = await issue('closed', 'bug');
    await issue('unlabelled', 'docs');
    await site.api(`/projects/${project.id}/issues/${closed.iid}`, { method: 'PUT', body: { state_event: 'close' } });
    // No 10.x API writes relative_position (the web UI's drag and drop does): set it as that would.
    const position = site.site.db.prepare('UPDATE issues SET relative_position = ? WHERE id = ?');
    position.run(300, a.id);
    position.run(100, b.id);
    position.run(200, c.id);
    const bugList = await listOf('bug');
    const titles = async (as: string) => {
      const response = await site.api(`${listsPath()}/${bugList.id}/issues`, { as });
      expect(response.status, response.text).toBe(200);
      return response.body.map((row: any) => row.title);
    };
    expect(await titles(reporter.token)).toEqual(['b', 'c', 'a', 'd']);
    expect(await titles(guest.token)).toEqual(['b', 'a', 'd']);
    const page = await site.api(`${listsPath()}/${bugList.id}/issues?per_page=2&page=2`, { as: reporter.token });
    expect(page.body.map((row: any) => row.iid)).toEqual([a.iid, d.iid]);
    expect(page.headers['x-total']).toBe('4');
    expect(page.body[0]).toMatchObject({ id: a.id, project_id: project.id, labels: ['bug'], state: 'opened' });
    expect(await site.api(`${listsPath()}/${bugList.id}/issues`, { as: null })).toMatchObject({ status: 401 });
    expect(await site.api(`${listsPath()}/${bugList.id}/issues`, { as: outsider.token })).toMatchObject({ status: 404 });
    // A project board's group-label list shows the project's issues carrying that group label.
    await issue('grouped', 'group-wide');
    expect((await site.api(`${listsPath()}/${(await listOf('group-wide')).id}/issues`)).body.map((row: any) => row.title)).toEqual(['grouped']);
  });
});

describe('group boards (ee)', () => {
  const groupBoards = () => `/groups/${group.id}/boards`;

  it('creates, reads, lists and deletes group boards, with lists from group labels and issues from the group and its subgroups', async () => {
    expect((await site.api(groupBoards(), { as: guest.token })).body).toEqual([]);
    const board = await created(groupBoards(), { name: 'Group board' }, reporter.token);
    expect(board).toEqual({
      id: expect.any(Number),
      name: 'Group board',
      project: null,
      milestone: null,
      lists: [],
      group: { id: group.id, name: group.name, web_url: expect.stringMatching(new RegExp(`/groups/${group.full_path}$`)) },
      assignee: null,
      labels: [],
      weight: null,
    });
    const label = await created(`/groups/${group.id}/labels`, { name: 'team', color: '#abcdef' });
    const projectLabel = await created(`/projects/${project.id}/labels`, { name: 'project-only', color: '#abcdef' });
    const lists = `${groupBoards()}/${board.id}/lists`;
    expect(await post(lists, { label_id: projectLabel.id })).toMatchObject({ status: 400, body: { message: { error: 'Label not found!' } } });
    const list = await created(lists, { label_id: label.id }, reporter.token);
    expect(list).toMatchObject({ label: { id: label.id, name: 'team' }, position: 0 });
    const second = await created(lists, { label_id: (await created(`/groups/${group.id}/labels`, { name: 'team2', color: '#abcdef' })).id });
    expect((await site.api(`${lists}/${second.id}`, { method: 'PUT', body: { position: 0 }, as: reporter.token })).body).toMatchObject({ position: 0 });
    expect((await site.api(lists)).body.map((row: any) => row.label.name)).toEqual(['team2', 'team']);

    await created(`/projects/${project.id}/issues`, { title: 'top', labels: 'team' });
    await created(`/projects/${subproject.id}/issues`, { title: 'below', labels: 'team' });
    await created(`/projects/${subproject.id}/issues`, { title: 'secret', labels: 'team', confidential: true });
    const titles = async (as: string) => (await site.api(`${lists}/${list.id}/issues`, { as })).body.map((row: any) => row.title).sort();
    expect(await titles(reporter.token)).toEqual(['below', 'secret', 'top']);
    expect(await titles(guest.token)).toEqual(['below', 'top']);

    expect(await site.api(`${lists}/${list.id}`, { method: 'DELETE', as: reporter.token })).toMatchObject({ status: 403 });
    expect((await site.api(`${lists}/${list.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(lists)).body.map((row: any) => `${row.label.name}:${row.position}`)).toEqual(['team2:0']);
    expect((await site.api(`${groupBoards()}/${board.id}`, { method: 'DELETE', as: reporter.token })).status).toBe(204);
    expect(await site.api(`${groupBoards()}/${board.id}`)).toMatchObject({ status: 404, body: { message: '404 Board Not Found' } });
  });

  it('refuses anonymous callers (401), outsiders of the private group (404), guests writing (403)', async () => {
    expect(await site.api(groupBoards(), { as: null })).toMatchObject({ status: 401 });
    expect(await site.api(groupBoards(), { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await post(groupBoards(), { name: 'x' }, guest.token)).toMatchObject({ status: 403 });
    const board = await created(groupBoards(), { name: 'Guarded' });
    const label = await created(`/groups/${group.id}/labels`, { name: 'guarded', color: '#abcdef' });
    expect(await post(`${groupBoards()}/${board.id}/lists`, { label_id: label.id }, guest.token)).toMatchObject({ status: 403 });
    expect(await site.api(`${groupBoards()}/${board.id}`, { method: 'DELETE', as: guest.token })).toMatchObject({ status: 403 });
    expect(await site.api(`/groups/${subgroup.id}/boards/${board.id}`)).toMatchObject({ status: 404, body: { message: '404 Board Not Found' } });
  });
});

describe('the ce edition', () => {
  let ce: TestSite;
  beforeAll(async () => {
    ce = await startSite({ edition: 'ce' });
  });
  afterAll(() => ce.stop());

  it('has no board create or delete routes and no group boards (404 as unknown routes); boards read without the ee fields', async () => {
    const ceProject = (await ce.api('/projects', { method: 'POST', body: { name: 'ce-project' } })).body;
    const ceGroup = (await ce.api('/groups', { method: 'POST', body: { name: 'ce-group', path: 'ce-group' } })).body;
    expect(await ce.api(`/projects/${ceProject.id}/boards`, { method: 'POST', body: { name: 'x' } })).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    expect(await ce.api(`/projects/${ceProject.id}/boards`, { method: 'POST', body: { name: 'x' }, as: null })).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    expect(await ce.api(`/groups/${ceGroup.id}/boards`)).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    expect(await ce.api(`/groups/${ceGroup.id}/boards`, { method: 'POST', body: { name: 'x' } })).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    expect((await ce.api(`/projects/${ceProject.id}/boards`)).body).toEqual([]);
    // ce makes its one board outside the API (GitLab's web UI does, lazily): the service stands in for it.
    const board = createBoard(ce.site.db, { owner: { projectId: ceProject.id }, labels: { projectId: ceProject.id, groupIds: [] }, milestones: { projectIds: [ceProject.id], groupIds: [] } }, { name: 'Development' });
    expect(await ce.api(`/projects/${ceProject.id}/boards/${board.id}`, { method: 'DELETE' })).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    const shown = await ce.api(`/projects/${ceProject.id}/boards/${board.id}`);
    expect(shown.status).toBe(200);
    expect(Object.keys(shown.body).sort()).toEqual(['id', 'lists', 'milestone', 'name', 'project']);
    const label = (await ce.api(`/projects/${ceProject.id}/labels`, { method: 'POST', body: { name: 'bug', color: '#ff0000' } })).body;
    expect(await ce.api(`/projects/${ceProject.id}/boards/${board.id}/lists`, { method: 'POST', body: { label_id: label.id } })).toMatchObject({ status: 201, body: { position: 0 } });
  });
});
