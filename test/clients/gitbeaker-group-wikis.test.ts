import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Group wikis (ee) through @gitbeaker/rest's GroupWikis, a client of GitLab 17's API: what
 * python-gitlab 3.12 does not send (render_html, version, attachments).
 */
let site: TestSite;
let maintainer: TestUser;
let group: TestGroup;

beforeAll(async () => {
  site = await startSite();
  maintainer = await createUser(site);
  group = await createGroup(site, { visibility: 'private' });
  await addMember(site, 'groups', group.id, maintainer, 40);
});
afterAll(() => site.stop());

describe('@gitbeaker/rest GroupWikis', () => {
  it('creates, lists, shows (rendered), edits, uploads to and removes group wiki pages', { timeout: 60_000 }, async () => {
    const api = new Gitlab({ host: site.url, token: maintainer.token });
    const created = await api.GroupWikis.create(group.id, '# Title\n\n*first*', 'Read me');
    expect(created).toEqual({ format: 'markdown', slug: 'Read-me', title: 'Read me', content: '# Title\n\n*first*', encoding: 'UTF-8' });
    expect(await api.GroupWikis.all(group.id)).toEqual([{ format: 'markdown', slug: 'Read-me', title: 'Read me' }]);
    expect(await api.GroupWikis.all(group.id, { withContent: true })).toEqual([created]);

    const rendered = await api.GroupWikis.show(group.id, 'Read-me', { renderHtml: true });
    expect(rendered.content).toBe('<h1>Title</h1>\n<p><em>first</em></p>\n');

    const edited = await api.GroupWikis.edit(group.id, 'Read-me', { content: 'second' });
    expect(edited.content).toBe('second');

    const attachment = await api.GroupWikis.uploadAttachment(group.id, { content: new Blob(['notes']), filename: 'notes.txt' });
    expect(attachment).toMatchObject({ file_name: 'notes.txt', branch: 'main', link: { markdown: `[notes.txt](${attachment.file_path})` } });

    await api.GroupWikis.remove(group.id, 'Read-me');
    await expect(api.GroupWikis.show(group.id, 'Read-me')).rejects.toThrow(/Not Found/);
  });
});
