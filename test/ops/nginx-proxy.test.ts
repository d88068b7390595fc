import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { freePort, ROOT_TOKEN, SiteProcess, waitFor } from '../helpers/multisite.js';

/**
 * deploy/nginx/geoforge.conf, unchanged but for its ports, upstream and certificate paths, in
 * Debian's nginx (installed by .ci/run) with a self-signed certificate, in front of a real site:
 * a 20 MiB push and its clone over TLS, an LFS upload and download through the batch API's
 * hrefs (externalUrl is the proxy), plain HTTP redirected, /-/metrics served to loopback.
 */

const NGINX = '/usr/sbin/nginx';
const run = promisify(execFile);
const root = { username: 'root', token: ROOT_TOKEN };

describe.skipIf(!existsSync(NGINX))('the nginx example in front of a site', () => {
  let site: SiteProcess;
  let nginx: ChildProcess | null = null;
  let dir: string;
  let httpsUrl: string;
  let httpUrl: string;
  let nginxOutput = '';
  const insecure = new Agent({ connect: { rejectUnauthorized: false } });
  const git = gitClient(tmpdir(), 120_000);
  const gitEnv = { GIT_SSL_NO_VERIFY: '1' };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-nginx-'));
    const [tlsPort, plainPort] = [await freePort(), await freePort()];
    httpsUrl = `https://127.0.0.1:${tlsPort}`;
    httpUrl = `http://127.0.0.1:${plainPort}`;
    site = await SiteProcess.create({ name: 'proxied', role: 'primary', env: { GEOFORGE_EXTERNAL_URL: httpsUrl } });
    await site.start();
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=git.example.com', '-days', '1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')]);
    const example = await readFile(path.resolve('deploy/nginx/geoforge.conf'), 'utf8');
    const replace = (text: string, from: string, to: string) => {
      if (!text.includes(from)) throw new Error(`deploy/nginx/geoforge.conf no longer has "${from}"`);
      return text.replaceAll(from, to);
    };
    let conf = replace(example, 'server 127.0.0.1:8080;', `server 127.0.0.1:${site.port};`);
    conf = replace(conf, '    listen 80;\n', `    listen 127.0.0.1:${plainPort};\n`);
    conf = replace(conf, '    listen 443 ssl http2;\n', `    listen 127.0.0.1:${tlsPort} ssl http2;\n`);
    conf = conf.replace(/^\s*listen \[::\]:.*\n/gm, '');
    conf = replace(conf, '/etc/letsencrypt/live/git.example.com/fullchain.pem', path.join(dir, 'cert.pem'));
    conf = replace(conf, '/etc/letsencrypt/live/git.example.com/privkey.pem', path.join(dir, 'key.pem'));
    await writeFile(path.join(dir, 'geoforge.conf'), conf);
    for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) await mkdir(path.join(dir, temp));
    await writeFile(
      path.join(dir, 'nginx.conf'),
      `daemon off;\nmaster_process off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents {}\nhttp {\n  access_log off;\n` +
        ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((temp) => `  ${temp === 'body' ? 'client_body' : temp}_temp_path ${dir}/${temp};\n`).join('') +
        `  include ${dir}/geoforge.conf;\n}\n`,
    );
    const tested = await run(NGINX, ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')]).catch((error: { stderr: string }) => ({ stderr: `FAILED ${error.stderr}` }));
    expect(tested.stderr).toContain('test is successful');
    nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stderr!.on('data', (chunk: Buffer) => (nginxOutput += chunk.toString()));
    await waitFor(async () => (await request(`${httpsUrl}/-/readiness`, { dispatcher: insecure }).catch(() => null))?.statusCode === 200, {
      timeoutMs: 15_000,
      message: `nginx proxying to the site ${nginxOutput}`,
    });
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    await insecure.close();
    await site?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('redirects plain HTTP to HTTPS and keeps /-/metrics to allowed addresses', async () => {
    const plain = await request(`${httpUrl}/api/v4/version`, { dispatcher: insecure });
    await plain.body.dump();
    expect(plain.statusCode).toBe(301);
    expect(plain.headers.location).toBe(`https://127.0.0.1/api/v4/version`);
    const metrics = await request(`${httpsUrl}/-/metrics`, { dispatcher: insecure });
    expect(metrics.statusCode).toBe(200);
    expect(await metrics.body.text()).toContain('http_requests_total');
    const api = await request(`${httpsUrl}/api/v4/projects?per_page=1`, { dispatcher: insecure, headers: { 'private-token': ROOT_TOKEN } });
    await api.body.dump();
    expect(api.statusCode).toBe(200);
    // The pagination links are built from externalUrl: the proxy's https URL.
    expect(String(api.headers.link)).toMatch(new RegExp(`^<${httpsUrl}/api/v4/projects\\?`));
    expect(api.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('pushes 20 MiB, clones it back and moves an LFS object over TLS through the proxy', async () => {
    const created = await request(`${httpsUrl}/api/v4/projects`, {
      method: 'POST',
      dispatcher: insecure,
      headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'proxied', default_branch: 'master' }),
    });
    expect(created.statusCode).toBe(201);
    const project = (await created.body.json()) as { id: number; path_with_namespace: string; http_url_to_repo: string };
    expect(project.http_url_to_repo).toBe(`${httpsUrl}/${project.path_with_namespace}.git`);
    const work = path.join(dir, 'work');
    await git(['init', '--quiet', '-b', 'master', work]);
    await git(['lfs', 'install', '--local'], work);
    await git(['config', 'lfs.locksverify', 'false'], work);
    await git(['lfs', 'track', '*.bin'], work);
    const big = randomBytes(20 * 1024 * 1024);
    const lfs = randomBytes(3 * 1024 * 1024);
    await writeFile(path.join(work, 'big.dat'), big);
    await writeFile(path.join(work, 'object.bin'), lfs);
    await git(['add', '-A'], work);
    await git(['commit', '--quiet', '-m', 'large'], work);
    await git(['push', '--quiet', remoteUrl(httpsUrl, project, root), 'HEAD:refs/heads/master'], work, gitEnv);
    const clone = path.join(dir, 'clone');
    await git(['clone', '--quiet', remoteUrl(httpsUrl, project, root), clone], undefined, gitEnv);
    expect((await readFile(path.join(clone, 'big.dat'))).equals(big)).toBe(true);
    await git(['lfs', 'install', '--local'], clone);
    await git(['lfs', 'pull'], clone, gitEnv);
    expect((await readFile(path.join(clone, 'object.bin'))).equals(lfs)).toBe(true);
    const metrics = await (await request(`${httpsUrl}/-/metrics`, { dispatcher: insecure })).body.text();
    expect(metrics).toMatch(new RegExp(`^lfs_transferred_bytes_total\\{direction="upload"\\} ${lfs.length}$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^lfs_transferred_bytes_total\\{direction="download"\\} ${lfs.length}$`, 'm'));
  }, 120_000);
});
