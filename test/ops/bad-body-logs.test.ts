import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteProcess } from '../helpers/multisite.js';
import { ROOT_TOKEN } from '../helpers/site.js';

/**
 * A client's malformed body is its own fault: a 400 (or 413) in GitLab's shape, the site keeps
 * serving, and the log has no line at error level or above (and no stack) for it. Run against a
 * real site process at debug level, whose whole output is read. Git's smart HTTP likewise.
 */
const boundary = 'geoforge-boundary';
const multipartType = `multipart/form-data; boundary=${boundary}`;
const part = (name: string, body: string, filename?: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${body}`;

const BAD_BODIES: { what: string; path: string; type: string; body: string | Buffer }[] = [
  { what: 'a multipart file part cut short', path: '/projects/:id/uploads', type: multipartType, body: part('file', 'abc', 'a.txt') },
  { what: 'a multipart field cut short', path: '/projects', type: multipartType, body: part('name', 'abc') },
  { what: 'a multipart body without its boundary', path: '/projects/:id/uploads', type: 'multipart/form-data', body: 'junk' },
  { what: 'a multipart body with another boundary', path: '/projects/:id/uploads', type: multipartType, body: '--other\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc\r\n--other--\r\n' },
  { what: 'a multipart part without headers', path: '/projects/:id/uploads', type: multipartType, body: `--${boundary}\r\nnonsense\r\n--${boundary}--\r\n` },
  { what: 'JSON cut short', path: '/projects', type: 'application/json', body: '{"name": "x' },
  { what: 'JSON that is a string', path: '/projects', type: 'application/json', body: '"name"' },
  { what: 'JSON with a charset body-parser reads', path: '/projects', type: 'application/json; charset=latin1', body: '{bad' },
  { what: 'JSON labelled gzip that is not', path: '/projects', type: 'application/json', body: 'not gzip at all' },
  { what: 'a form body with a bad charset', path: '/projects', type: 'application/x-www-form-urlencoded; charset=klingon', body: 'name=x' },
  { what: 'a form body labelled gzip that is not', path: '/projects', type: 'application/x-www-form-urlencoded', body: Buffer.from('name=x') },
];

describe('malformed request bodies', () => {
  let site: SiteProcess;
  let projectId = 0;
  let projectPath = '';

  beforeAll(async () => {
    site = await SiteProcess.create({ name: 'bad-bodies', role: 'primary', env: { GEOFORGE_LOG_LEVEL: 'debug' } });
    await site.start();
    const project = await site.api('/projects', { method: 'POST', body: { name: `bodies-${randomBytes(3).toString('hex')}` } });
    expect(project.status).toBe(201);
    projectId = project.body.id;
    projectPath = project.body.path_with_namespace;
  });

  afterAll(async () => {
    await site?.destroy();
  });

  /** A request the site did not answer: which one, and what the site logged meanwhile. */
  const unanswered = (what: string) => (error: Error) => {
    throw new Error(`${what}: ${error.message}\n${site.output.slice(-4000)}`, { cause: error });
  };

  it('answers each with a 4xx in GitLab shape and logs none of them at error level', async () => {
    for (const bad of BAD_BODIES) {
      const gzip: Record<string, string> = bad.what.includes('gzip') ? { 'content-encoding': 'gzip' } : {};
      const response = await site
        .api(bad.path.replace(':id', String(projectId)), { method: 'POST', body: bad.body.toString(), headers: { 'content-type': bad.type, ...gzip } })
        .catch(unanswered(bad.what));
      expect([400, 413, 415], `${bad.what}: ${response.status} ${response.text}`).toContain(response.status);
      expect(response.body, bad.what).toHaveProperty('message');
      expect(site.running, `${bad.what} leaves the site running`).toBe(true);
    }
    // Git's smart HTTP: a body that is not gzip, or not git's protocol, is refused with 400 before anything is sent.
    const auth = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;
    for (const [service, body, gzip] of [
      ['git-upload-pack', 'not gzip', true],
      ['git-upload-pack', 'garbage', false],
      ['git-upload-pack', gzipSync('garbage'), true],
      ['git-receive-pack', 'garbage', false],
    ] as const) {
      const response = await request(`${site.url}/${projectPath}.git/${service}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': `application/x-${service}-request`, ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
        body,
      }).catch(unanswered(`${service} with ${String(body)}`));
      expect(response.statusCode, `${service} with ${String(body)}`).toBe(400);
      expect(await response.body.text()).toMatch(/not a git request/);
    }
    // Still serving, and a good upload still works after the bad ones.
    expect((await site.api('/version')).status).toBe(200);
    const good = await site.api(`/projects/${projectId}/uploads`, {
      method: 'POST',
      body: `${part('file', 'hello', 'hello.txt')}\r\n--${boundary}--\r\n`,
      headers: { 'content-type': multipartType },
    });
    expect(good.status).toBe(201);

    await site.kill('SIGTERM');
    const lines = site.output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg?: string; status?: number; stack?: string; err?: unknown });
    expect(lines.filter((line) => line.status === 400 || line.status === 413 || line.status === 415).length).toBeGreaterThanOrEqual(BAD_BODIES.length);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => line.err !== undefined || line.stack !== undefined)).toEqual([]);
    expect(site.output).not.toMatch(/^\s+at .*\(.*:\d+:\d+\)$/m);
  });
});
