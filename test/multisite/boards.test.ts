import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createdOn, readsTheSame, useTwoSites, type SiteProcess } from '../helpers/multisite.js';

/**
 * Boards replicate (issue 16, item 6, the boards half): project and group boards with their label
 * lists, written through the primary or through a secondary that forwards the write, read the
 * same on the secondary, moves and deletes of lists included.
 */
describe('multi-site boards', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));

  const sameOnBoth = (path: string, status = 200) => readsTheSame(primary, secondary, path, status);
  const created = createdOn;

  it('project boards and lists, written through either site, read the same on the secondary', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await created(primary, '/projects', { name: `boards-${suffix}`, visibility: 'private' });
    const labels = [];
    for (const name of ['todo', 'doing', 'done']) labels.push(await created(primary, `/projects/${project.id}/labels`, { name, color: '#428bca' }));
    const board = await created(primary, `/projects/${project.id}/boards`, { name: 'Development' });
    const viaSecondary = await created(secondary, `/projects/${project.id}/boards`, { name: 'Through the secondary' });
    const lists = [];
    lists.push(await created(primary, `/projects/${project.id}/boards/${board.id}/lists`, { label_id: labels[0].id }));
    lists.push(await created(secondary, `/projects/${project.id}/boards/${board.id}/lists`, { label_id: labels[1].id }));
    lists.push(await created(secondary, `/projects/${project.id}/boards/${board.id}/lists`, { label_id: labels[2].id }));
    const moved = await secondary.api(`/projects/${project.id}/boards/${board.id}/lists/${lists[2].id}`, { method: 'PUT', body: { position: 0 } });
    expect(moved.status, moved.text).toBe(200);
    expect((await secondary.api(`/projects/${project.id}/boards/${board.id}/lists/${lists[0].id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await secondary.api(`/projects/${project.id}/boards/${viaSecondary.id}`, { method: 'DELETE' })).status).toBe(204);
    await created(primary, `/projects/${project.id}/issues`, { title: 'doing it', labels: 'doing' });

    const boards = await sameOnBoth(`/projects/${project.id}/boards`);
    expect(boards.body.map((row: any) => row.name)).toEqual(['Development']);
    const shown = await sameOnBoth(`/projects/${project.id}/boards/${board.id}`);
    expect(shown.body.lists.map((list: any) => [list.label.name, list.position])).toEqual([
      ['done', 0],
      ['doing', 1],
    ]);
    await sameOnBoth(`/projects/${project.id}/boards/${board.id}/lists`);
    await sameOnBoth(`/projects/${project.id}/boards/${board.id}/lists/${lists[1].id}`);
    await sameOnBoth(`/projects/${project.id}/boards/${board.id}/lists/${lists[0].id}`, 404);
    const issues = await sameOnBoth(`/projects/${project.id}/boards/${board.id}/lists/${lists[1].id}/issues`);
    expect(issues.body.map((issue: any) => issue.title)).toEqual(['doing it']);
  });

  it('group boards and their lists read the same on the secondary', async () => {
    const suffix = randomUUID().slice(0, 8);
    const group = await created(primary, '/groups', { name: `boards-${suffix}`, path: `boards-${suffix}` });
    const label = await created(primary, `/groups/${group.id}/labels`, { name: 'team', color: '#5cb85c' });
    const board = await created(secondary, `/groups/${group.id}/boards`, { name: 'Group board' });
    await created(secondary, `/groups/${group.id}/boards/${board.id}/lists`, { label_id: label.id });
    const shown = await sameOnBoth(`/groups/${group.id}/boards/${board.id}`);
    expect(shown.body).toMatchObject({ name: 'Group board', group: { id: group.id }, lists: [{ label: { name: 'team' }, position: 0 }] });
    await sameOnBoth(`/groups/${group.id}/boards`);
  });
});
