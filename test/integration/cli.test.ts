import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const cli = path.resolve('dist/cli.js');

/** The built CLI, as `npm start` and the geoforge bin run it. */
describe('geoforge CLI', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geoforge-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const env = () => ({ ...process.env, GEOFORGE_DATA_DIR: dataDir, GEOFORGE_LOG_LEVEL: 'info' });

  it('migrates, refuses bad settings by name, and serves with a token it printed', async () => {
    expect((await run('node', [cli, 'migrate'], { env: env() })).stdout).toMatch(/applied migrations 1/);
    expect((await run('node', [cli, 'migrate'], { env: env() })).stdout).toMatch(/up to date/);
    const bad = await run('node', [cli, 'serve'], { env: { ...env(), GEOFORGE_PORT: 'abc' } }).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('GEOFORGE_PORT: expected 0-65535, got "abc"');

    // The embedded mode, which boots fastest; test/multisite/worker-processes.test.ts covers the workers.
    const server = spawn('node', [cli, 'serve'], { env: { ...env(), GEOFORGE_PORT: '0', GEOFORGE_WORKERS: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const match = /"url":"([^"]+)"/.exec(out);
          if (match) resolve(match[1]);
        });
        server.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
      });
      const password = (await readFile(path.join(dataDir, 'initial_root_password'), 'utf8')).trim();
      expect(password.length).toBeGreaterThan(20);

      const token = (await run('node', [cli, 'token', 'create', '--user', 'root', '--scopes', 'api,sudo'], { env: env() })).stdout.trim();
      expect(token).toMatch(/^glpat-/);
      const me = await request(`${url}/api/v4/user`, { headers: { 'private-token': token } });
      expect(((await me.body.json()) as { username: string }).username).toBe('root');

      const badScope = await run('node', [cli, 'token', 'create', '--user', 'root', '--scopes', 'admin'], { env: env() }).catch((error: { stderr: string }) => error);
      expect((badScope as { stderr: string }).stderr).toContain('--scopes');
    } finally {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
    const log = await readFile(path.join(dataDir, 'initial_root_password'), 'utf8');
    expect(log).not.toBe('');
  });
});
