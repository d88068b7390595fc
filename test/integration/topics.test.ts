import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

function avatarForm(fields: Record<string, string>, filename = 'topic.png'): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('avatar', new Blob([new Uint8Array(PNG)]), filename);
  return form;
}

const ids = (body: { id: number }[]) => body.map((row) => row.id);

describe('topics', () => {
  let site: TestSite;
  let user: TestUser;

  beforeAll(async () => {
    site = await startSite();
    user = await createUser(site);
  });
  afterAll(() => site.stop());

  describe('admin writes', () => {
    it('creates, reads, updates and deletes a topic, with GitLab 17 shape', async () => {
      const created = await site.api('/topics', { method: 'POST', body: { name: 'gitops', title: 'GitOps', description: 'Deploy from git' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ id: expect.any(Number), name: 'gitops', title: 'GitOps', description: 'Deploy from git', total_projects_count: 0, avatar_url: null });

      const shown = await site.api(`/topics/${created.body.id}`, { as: null });
      expect(shown).toMatchObject({ status: 200, body: created.body });

      const updated = await site.api(`/topics/${created.body.id}`, { method: 'PUT', body: { title: 'Git Ops' } });
      expect(updated).toMatchObject({ status: 200, body: { name: 'gitops', title: 'Git Ops', description: 'Deploy from git' } });

      expect((await site.api(`/topics/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await site.api(`/topics/${created.body.id}`)).status).toBe(404);
    });

    it('stores an avatar, serves it, and removes it when avatar is sent empty', async () => {
      const created = await site.api('/topics', { method: 'POST', form: avatarForm({ name: 'avatared', title: 'Avatared' }) });
      expect(created.status).toBe(201);
      expect(created.body.avatar_url).toMatch(new RegExp(`/uploads/-/system/projects/topic/avatar/${created.body.id}/topic.png$`));
      const file = await site.api(new URL(created.body.avatar_url).pathname, { as: null });
      expect(file.status).toBe(200);

      // GitLab's `--data "avatar="`: multipart drops empty fields, so the clients send it as data.
      const cleared = await site.api(`/topics/${created.body.id}`, { method: 'PUT', body: { avatar: '' } });
      expect(cleared).toMatchObject({ status: 200, body: { avatar_url: null } });
      expect((await site.api(new URL(created.body.avatar_url).pathname, { as: null })).status).toBe(404);

      const bad = await site.api(`/topics/${created.body.id}`, { method: 'PUT', form: avatarForm({}, 'topic.txt') });
      expect(bad.status).toBe(400);
    });

    it('answers GitLab error rows: 400 missing or taken, 401 anonymous, 403 non-admin, 404 unknown', async () => {
      await site.api('/topics', { method: 'POST', body: { name: 'Taken', title: 'Taken' } });
      expect(await site.api('/topics', { method: 'POST', body: { title: 'x' } })).toMatchObject({ status: 400, body: { message: 'name is missing' } });
      expect(await site.api('/topics', { method: 'POST', body: { name: 'x' } })).toMatchObject({ status: 400, body: { message: 'title is missing' } });
      expect(await site.api('/topics', { method: 'POST', body: { name: 'taken', title: 'x' } })).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
      expect((await site.api('/topics', { method: 'POST', body: { name: 'y', title: 'y' }, as: null })).status).toBe(401);
      expect((await site.api('/topics', { method: 'POST', body: { name: 'y', title: 'y' }, as: user.token })).status).toBe(403);
      expect((await site.api('/topics/999999', { method: 'PUT', body: { title: 'z' } })).status).toBe(404);
      expect((await site.api('/topics/999999', { method: 'DELETE' })).status).toBe(404);
      expect((await site.api('/topics/abc')).status).toBe(400);
      expect((await site.api('/topics/999999')).status).toBe(404);
      expect((await site.api('/topics/1', { method: 'DELETE', as: user.token })).status).toBe(403);
      expect((await site.api('/topics?without_projects=maybe')).status).toBe(400);
    });
  });

  describe('on projects', () => {
    it('sets topics on create and update (tag_list too), shows them, and counts projects per topic', async () => {
      const project = await createProject(site, { topics: ['ruby', ' Rails ', 'ruby', ''] }, user.token);
      expect(project.topics).toEqual(['ruby', 'Rails']);
      expect(project.tag_list).toEqual(['Rails', 'ruby']);
      const legacy = await createProject(site, { tag_list: 'ruby,docs' }, user.token);
      expect(legacy.topics).toEqual(['ruby', 'docs']);

      const listed = await site.api('/topics?search=rub', { as: null });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([expect.objectContaining({ name: 'ruby', title: 'ruby', total_projects_count: 2 })]);
      expect(listed.headers['x-total']).toBe('1');

      const updated = await site.api(`/projects/${legacy.id}`, { method: 'PUT', body: { topics: ['docs'] }, as: user.token });
      expect(updated.body.topics).toEqual(['docs']);
      const ruby = listed.body[0];
      expect((await site.api(`/topics/${ruby.id}`)).body.total_projects_count).toBe(1);

      const unused = await site.api('/topics', { method: 'POST', body: { name: 'unused-topic', title: 'Unused' } });
      const without = await site.api('/topics?without_projects=true&per_page=100');
      expect(ids(without.body)).toContain(unused.body.id);
      expect(ids(without.body)).not.toContain(ruby.id);
    });

    it('filters project lists by topic (all must match, any case) and topic_id, on /projects, /groups/:id/projects and /users/:id/projects', async () => {
      const owner = await createUser(site);
      const group = await createGroup(site, { visibility: 'public' });
      const both = await createProject(site, { namespace_id: group.id, topics: ['alpha-t', 'beta-t'], visibility: 'public' });
      const alpha = await createProject(site, { namespace_id: group.id, topics: ['alpha-t'], visibility: 'public' });
      const mine = await createProject(site, { topics: ['alpha-t', 'beta-t'], visibility: 'public' }, owner.token);
      const secret = await createProject(site, { topics: ['alpha-t', 'beta-t'], visibility: 'private' });

      const all = await site.api('/projects?topic=ALPHA-T,beta-t', { as: user.token });
      expect(ids(all.body).sort()).toEqual([both.id, mine.id].sort());
      expect(ids((await site.api('/projects?topic=alpha-t', { as: null })).body).sort()).toEqual([both.id, alpha.id, mine.id].sort());
      expect(ids((await site.api('/projects?topic=alpha-t,beta-t')).body)).toContain(secret.id);

      expect(ids((await site.api(`/groups/${group.id}/projects?topic=beta-t`)).body)).toEqual([both.id]);
      expect(ids((await site.api(`/users/${owner.id}/projects?topic=alpha-t`)).body)).toEqual([mine.id]);

      const beta = (await site.api('/topics?search=beta-t')).body[0];
      expect(ids((await site.api(`/projects?topic_id=${beta.id}`, { as: user.token })).body).sort()).toEqual([both.id, mine.id].sort());
      expect((await site.api('/projects?topic_id=999999')).body).toEqual([]);
      expect((await site.api('/projects?topic_id=x')).status).toBe(400);
    });

    it('merges a topic into another: its projects move, the source goes', async () => {
      const source = (await site.api('/topics', { method: 'POST', body: { name: 'merge-src', title: 'Source' } })).body;
      const target = (await site.api('/topics', { method: 'POST', body: { name: 'merge-dst', title: 'Target' } })).body;
      const onSource = await createProject(site, { topics: ['merge-src'] });
      const onBoth = await createProject(site, { topics: ['merge-src', 'merge-dst'] });

      expect((await site.api('/topics/merge', { method: 'POST', body: { source_topic_id: source.id, target_topic_id: source.id } }))).toMatchObject({
        status: 400,
        body: { message: 'The source topic and the target topic are identical.' },
      });
      expect((await site.api('/topics/merge', { method: 'POST', body: { source_topic_id: source.id } })).status).toBe(400);
      expect((await site.api('/topics/merge', { method: 'POST', body: { source_topic_id: source.id, target_topic_id: 999999 } })).status).toBe(404);
      expect((await site.api('/topics/merge', { method: 'POST', body: { source_topic_id: source.id, target_topic_id: target.id }, as: user.token })).status).toBe(403);
      expect((await site.api('/topics/merge', { method: 'POST', body: { source_topic_id: source.id, target_topic_id: target.id }, as: null })).status).toBe(401);

      const merged = await site.api('/topics/merge', { method: 'POST', body: { source_topic_id: source.id, target_topic_id: target.id } });
      expect(merged).toMatchObject({ status: 201, body: { id: target.id, name: 'merge-dst', total_projects_count: 2 } });
      expect((await site.api(`/topics/${source.id}`)).status).toBe(404);
      expect((await site.api(`/projects/${onSource.id}`)).body.topics).toEqual(['merge-dst']);
      expect((await site.api(`/projects/${onBoth.id}`)).body.topics).toEqual(['merge-dst']);
    });
  });
});
