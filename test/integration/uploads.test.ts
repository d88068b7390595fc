import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** What python-gitlab's `project.upload()` sends: `file` plus an empty `avatar` part (GITLAB-NOTES W10). */
function uploadForm(filename: string, content: Buffer | string, type?: string): FormData {
  const form = new FormData();
  form.set('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)], type ? { type } : {}), filename);
  form.set('avatar', new Blob([]), '');
  return form;
}

describe('project uploads', () => {
  let site: TestSite;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let publicProject: any;
  let privateProject: any;

  /** A GET outside /api/v4, with optional headers; the body as bytes. */
  const web = async (pathAndQuery: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') => {
    const response = await request(`${site.url}${pathAndQuery}`, { method, headers });
    const body = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, body };
  };
  const upload = (projectId: number, form: FormData, as?: string | null) => site.api(`/projects/${projectId}/uploads`, { method: 'POST', form, as });

  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site);
    member = await createUser(site, { password: 'member-password' });
    stranger = await createUser(site);
    publicProject = await createProject(site, { name: 'Uploads Public', visibility: 'public' }, owner.token);
    privateProject = await createProject(site, { name: 'Uploads Private', visibility: 'private' }, owner.token);
    const added = await site.api(`/projects/${privateProject.id}/members`, { method: 'POST', body: { user_id: member.id, access_level: 10 }, as: owner.token });
    expect(added.status).toBe(201);
  });
  afterAll(() => site.stop());

  it('stores a non-image with the stray empty avatar part and answers GitLab’s link shape', async () => {
    const response = await upload(publicProject.id, uploadForm('notes.txt', 'hello uploads\n'), owner.token);
    expect(response.status).toBe(201);
    const { url } = response.body;
    expect(url).toMatch(/^\/uploads\/[0-9a-f]{32}\/notes\.txt$/);
    expect(response.body).toEqual({
      alt: 'notes.txt',
      url,
      full_path: `/${publicProject.path_with_namespace}${url}`,
      markdown: `[notes.txt](${url})`,
    });
    const row = site.site.db.prepare('SELECT * FROM uploads WHERE project_id = ?').get(publicProject.id) as any;
    expect(row).toMatchObject({ filename: 'notes.txt', size: 14, sha256: createHash('sha256').update('hello uploads\n').digest('hex'), uploaded_by_id: owner.id });
    const stored = path.join(site.dataDir, 'uploads', String(publicProject.id), row.secret, 'notes.txt');
    expect(await readFile(stored, 'utf8')).toBe('hello uploads\n');
    // Only the file itself is left: the temporary copy was renamed into place.
    expect(await readdir(path.dirname(stored))).toEqual(['notes.txt']);
  });

  it('answers the image form for images and serves them inline at the project web path', async () => {
    const response = await upload(publicProject.id, uploadForm('My Logo.png', PNG), owner.token);
    expect(response.status).toBe(201);
    const { url } = response.body;
    expect(url).toMatch(/^\/uploads\/[0-9a-f]{32}\/My_Logo\.png$/);
    expect(response.body).toMatchObject({ alt: 'My_Logo', markdown: `![My_Logo](${url})`, full_path: `/${publicProject.path_with_namespace}${url}` });

    expect(publicProject.web_url).toBe(`${site.url}/${publicProject.path_with_namespace}`);
    const served = await web(response.body.full_path);
    expect(served.status).toBe(200);
    expect(served.body.equals(PNG)).toBe(true);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['content-length']).toBe(String(PNG.length));
    expect(served.headers['content-disposition']).toBe('inline; filename="My_Logo.png"');
    expect(served.headers['x-content-type-options']).toBe('nosniff');

    const head = await web(response.body.full_path, {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(PNG.length));
  });

  it('serves other files as attachments with their type', async () => {
    const response = await upload(publicProject.id, uploadForm('page.html', '<script>alert(1)</script>', 'text/html'), owner.token);
    expect(response.body.markdown).toBe(`[page.html](${response.body.url})`);
    const served = await web(response.body.full_path);
    expect(served.status).toBe(200);
    expect(served.body.toString()).toBe('<script>alert(1)</script>');
    expect(served.headers['content-type']).toMatch(/^text\/html/);
    expect(served.headers['content-disposition']).toBe('attachment; filename="page.html"');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers 404 for an unknown secret or file name, and leaves other paths alone', async () => {
    const response = await upload(publicProject.id, uploadForm('a.txt', 'a'), owner.token);
    const secret = response.body.url.split('/')[2];
    expect((await web(`/${publicProject.path_with_namespace}/uploads/${'0'.repeat(32)}/a.txt`)).status).toBe(404);
    expect((await web(`/${publicProject.path_with_namespace}/uploads/${secret}/b.txt`)).status).toBe(404);
    expect((await web(`/no-such-namespace/project/uploads/${secret}/a.txt`)).status).toBe(404);
    // Not an upload tail: these fall through to the app's unknown-route answer.
    const other = await web(`/${publicProject.path_with_namespace}/uploads/not-a-secret/a.txt`);
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body.toString())).toEqual({ error: '404 Not Found' });
  });

  it('serves a private project’s uploads to members only, never revealing the project', async () => {
    const response = await upload(privateProject.id, uploadForm('secret.txt', 'top secret'), member.token);
    expect(response.status).toBe(201);
    const fullPath = response.body.full_path;
    expect(fullPath).toBe(`/${privateProject.path_with_namespace}${response.body.url}`);

    const anonymous = await web(fullPath);
    expect(anonymous.status).toBe(404);
    expect((await web(fullPath, { 'private-token': stranger.token })).status).toBe(404);
    expect((await web(`${fullPath}?private_token=${stranger.token}`)).status).toBe(404);

    const byHeader = await web(fullPath, { 'private-token': member.token });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body.toString()).toBe('top secret');
    const byQuery = await web(`${fullPath}?private_token=${member.token}`);
    expect(byQuery.status).toBe(200);
    expect(byQuery.body.toString()).toBe('top secret');
    expect((await web(fullPath, { 'private-token': owner.token })).status).toBe(200);

    const signIn = await request(`${site.url}/users/sign_in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `user[login]=${member.username}&user[password]=member-password`,
    });
    await signIn.body.text();
    expect(signIn.statusCode).toBe(302);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    expect((await web(fullPath, { cookie })).status).toBe(200);

    // A credential that is present but unusable is a 401, as on the API.
    expect((await web(fullPath, { 'private-token': 'glpat-not-a-real-token' })).status).toBe(401);
  });

  it('serves internal projects’ uploads to signed-in users only', async () => {
    const internal = await createProject(site, { name: 'Uploads Internal', visibility: 'internal' }, owner.token);
    const response = await upload(internal.id, uploadForm('i.txt', 'internal'), owner.token);
    expect((await web(response.body.full_path)).status).toBe(404);
    expect((await web(response.body.full_path, { 'private-token': stranger.token })).status).toBe(200);
  });

  it('checks authentication, the file part and the upload ability', async () => {
    const anonymous = await upload(publicProject.id, uploadForm('x.txt', 'x'), null);
    expect(anonymous).toMatchObject({ status: 401, body: { message: '401 Unauthorized' } });

    const noFile = new FormData();
    noFile.set('avatar', new Blob([]), '');
    noFile.set('file', new Blob([]), 'empty.txt');
    expect(await upload(publicProject.id, noFile, owner.token)).toMatchObject({ status: 400, body: { message: 'file is missing' } });

    // A stranger may read the public project but is no guest of it; a private one is not found.
    expect(await upload(publicProject.id, uploadForm('x.txt', 'x'), stranger.token)).toMatchObject({ status: 403 });
    expect(await upload(privateProject.id, uploadForm('x.txt', 'x'), stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    // Guests may upload (the member is a guest of the private project).
    expect((await upload(privateProject.id, uploadForm('ok.txt', 'ok'), member.token)).status).toBe(201);

    const archived = await createProject(site, { name: 'Uploads Archived' }, owner.token);
    expect((await site.api(`/projects/${archived.id}/archive`, { method: 'POST', as: owner.token })).status).toBe(201);
    expect(await upload(archived.id, uploadForm('x.txt', 'x'), owner.token)).toMatchObject({ status: 403 });
    expect(existsSync(path.join(site.dataDir, 'uploads', String(archived.id)))).toBe(false);
  });

  it('removes the uploads with the project', async () => {
    const doomed = await createProject(site, { name: 'Uploads Doomed' }, owner.token);
    const response = await upload(doomed.id, uploadForm('gone.txt', 'gone'), owner.token);
    expect(response.status).toBe(201);
    const dir = path.join(site.dataDir, 'uploads', String(doomed.id));
    expect(existsSync(dir)).toBe(true);
    expect((await site.api(`/projects/${doomed.id}`, { method: 'DELETE', as: owner.token })).status).toBe(202);
    expect(existsSync(dir)).toBe(false);
    expect(site.site.db.prepare('SELECT COUNT(*) FROM uploads WHERE project_id = ?').pluck().get(doomed.id)).toBe(0);
    expect((await web(response.body.full_path, { 'private-token': owner.token })).status).toBe(404);
  });
});
