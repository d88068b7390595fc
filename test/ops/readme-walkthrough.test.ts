import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '../helpers/multisite.js';

/**
 * Follows the two-site walkthrough of docs/geo.md and its failover, command by command: the shell blocks
 * are read from docs/geo.md and run as written, with three substitutions a test needs (free ports for
 * 8080 and 8081, `node dist/cli.js` for `npm start` and `npx geoforge`, a temporary directory as the
 * working directory). A guide whose commands stop working fails this test; so does a README whose
 * short walkthrough has a command the guide's does not.
 */

const ROOT = path.resolve('.');
const CLI = path.join(ROOT, 'dist/cli.js');
const GUIDE = readFileSync(path.join(ROOT, 'docs/geo.md'), 'utf8');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The first ```sh block of `doc` after the line that holds `marker`. */
function shellBlockAfter(marker: string, doc = GUIDE): string {
  const from = doc.indexOf(marker);
  expect(from, `the document has "${marker}"`).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(from));
  expect(block, `a sh block follows "${marker}"`).not.toBeNull();
  return block![1]!;
}

/** Logical lines: continuations joined; blank lines and comment lines (the expected output) dropped, but `# shell N` kept. */
function commandsOf(block: string): string[] {
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && (!line.startsWith('#') || /^# shell \d/.test(line)));
}

interface Walk {
  readonly dir: string;
  readonly ports: { primary: number; secondary: number };
  readonly env: NodeJS.ProcessEnv;
}

/** The README's command as this test runs it. */
function adapt(walk: Walk, command: string): string {
  return command
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${walk.ports.primary}`)
    .replaceAll('127.0.0.1:8081', `127.0.0.1:${walk.ports.secondary}`)
    .replaceAll('GEOFORGE_PORT=8081', `GEOFORGE_PORT=${walk.ports.secondary}`)
    .replace(/\bnpm start$/, `node ${CLI} serve`)
    .replaceAll('npx geoforge', `node ${CLI}`)
    .replace(/\s+#.*$/, '');
}

/** Runs commands one after the other in one bash (cd and exports carry over), each one's output apart. */
function runInOneShell(walk: Walk, commands: readonly string[]): { command: string; output: string; code: number }[] {
  const script = commands.map((command, i) => `echo "@@@ ${i}"\n{ ${command}\n} 2>&1\necho "@@@ code $?"`).join('\n');
  const out = execFileSync('bash', ['-c', script], { cwd: walk.dir, env: walk.env, encoding: 'utf8', timeout: 120_000 });
  return commands.map((command, i) => {
    const part = out.split(`@@@ ${i}\n`)[1]!.split('@@@ code ')[0]!;
    const code = Number(/^(\d+)/.exec(out.split(`@@@ ${i}\n`)[1]!.split('@@@ code ')[1]!)![1]);
    return { command, output: part, code };
  });
}

const children: ChildProcess[] = [];
let dir = '';

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)))));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the two-site walkthrough of docs/geo.md, and the README's short one", () => {
  it("the README's short walkthrough runs commands of the guide's, as the guide writes them", () => {
    const guide = new Set(commandsOf(shellBlockAfter('Two sites on one machine')));
    const short = commandsOf(shellBlockAfter('Both sites on one machine', README)).filter((command) => !command.startsWith('# shell'));
    expect(short.length).toBeGreaterThan(4);
    expect(short.filter((command) => !guide.has(command))).toEqual([]);
  });

  it('runs as written: a primary and a secondary, a forwarded write, a clone from the secondary, a planned failover and a demotion', { timeout: 240_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-walkthrough-'));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, GIT_TERMINAL_PROMPT: '0' };
    Object.assign(env, { GIT_AUTHOR_NAME: 'Walker', GIT_AUTHOR_EMAIL: 'walker@example.com', GIT_COMMITTER_NAME: 'Walker', GIT_COMMITTER_EMAIL: 'walker@example.com' });
    const walk: Walk = { dir, ports: { primary: await freePort(), secondary: await freePort() }, env };

    const commands = commandsOf(shellBlockAfter('Two sites on one machine'));
    const exported = commands.shift()!;
    expect(exported).toMatch(/^export GEOFORGE_GEO_SECRET=/);
    env.GEOFORGE_GEO_SECRET = execFileSync('bash', ['-c', `${adapt(walk, exported)} && printf %s "$GEOFORGE_GEO_SECRET"`], { env, encoding: 'utf8' });
    expect(env.GEOFORGE_GEO_SECRET).toMatch(/^[0-9a-f]{64}$/);

    // Shells 1 and 2 run a site each; shell 3 is everything after.
    const shell = (n: number) => commands.findIndex((line) => new RegExp(`^# shell ${n}\\b`).test(line));
    expect([shell(1), shell(2), shell(3)].every((i) => i >= 0)).toBe(true);
    const start = (command: string, port: number) => {
      const child = spawn('bash', ['-c', `exec env GEOFORGE_PORT=${port} ${adapt(walk, command)}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let log = '';
      child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      children.push(child);
      return () => log;
    };
    const ready = async (port: number, role: string) =>
      waitFor(async () => {
        const response = await fetch(`http://127.0.0.1:${port}/-/readiness`).catch(() => null);
        const body = response ? await response.text() : '';
        return body.includes('"status":"ok"') && body.includes(`"role":"${role}"`) ? body : null;
      }, { timeoutMs: 60_000, intervalMs: 200, message: `${role} on :${port} ready` });
    const primaryLog = start(commands[shell(1) + 1]!, walk.ports.primary);
    await ready(walk.ports.primary, 'primary').catch((error: Error) => Promise.reject(new Error(`${error.message}\n${primaryLog()}`)));
    const secondaryLog = start(commands[shell(2) + 1]!, walk.ports.secondary);
    await ready(walk.ports.secondary, 'secondary').catch((error: Error) => Promise.reject(new Error(`${error.message}\n${secondaryLog()}`)));

    const results = runInOneShell(walk, commands.slice(shell(3) + 1).map((command) => adapt(walk, command)));
    for (const { command, output, code } of results) expect(code, `${command}\n${output}`).toBe(0);
    const outputOf = (pattern: RegExp) => results.find((result) => pattern.test(result.command))!.output;
    expect(outputOf(/readiness/)).toContain('"role":"secondary"');
    expect(JSON.parse(outputOf(/users\?username=root/))).toMatchObject([{ username: 'root' }]);
    const created = outputOf(/-X POST .*\/api\/v4\/users/);
    expect(created).toMatch(/^HTTP\/1\.1 201/);
    expect(created).toMatch(/X-Geoforge-Replication: applied/i);
    expect(outputOf(/current\/failures/).trim()).toBe('[]');
    expect(existsSync(path.join(dir, 'demo-from-secondary/.git'))).toBe(true);
    expect(execFileSync('git', ['-C', path.join(dir, 'demo-from-secondary'), 'log', '--format=%s'], { env, encoding: 'utf8' }).trim()).toBe('first');
    // bob, created through the secondary, reads on both sites.
    for (const port of [walk.ports.primary, walk.ports.secondary]) {
      const users = (await (await fetch(`http://127.0.0.1:${port}/api/v4/users?username=bob`, { headers: { 'Private-Token': 'glpat-walkthrough-token-0001' } })).json()) as { username: string }[];
      expect(users.map((user) => user.username)).toEqual(['bob']);
    }

    // The failover block, in the same way (the old primary's commands run with shell 1's port).
    const failover = commandsOf(shellBlockAfter('The two sites above, failed over')).map((command) =>
      adapt(walk, command.startsWith('GEOFORGE_ROOT_TOKEN=') ? `GEOFORGE_PORT=${walk.ports.primary} ${command}` : command),
    );
    const steps = runInOneShell(walk, failover);
    for (const { command, output, code } of steps) expect(code, `${command}\n${output}`).toBe(0);
    const stepOf = (pattern: RegExp) => steps.find((step) => pattern.test(step.command))!.output;
    expect(stepOf(/geo promote/)).toMatch(/epoch: 1/);
    expect(stepOf(/name=late/)).toMatch(/^HTTP\/1\.1 503/);
    expect(stepOf(/name=late/)).toContain(`http://127.0.0.1:${walk.ports.secondary} is the primary (epoch 1)`);
    expect(stepOf(/geo demote/)).toMatch(/exported_events: 0/);
    // The old primary now follows the new one, and the new one takes writes.
    await ready(walk.ports.primary, 'secondary');
    const late = await fetch(`http://127.0.0.1:${walk.ports.secondary}/api/v4/projects`, {
      method: 'POST',
      headers: { 'Private-Token': 'glpat-walkthrough-token-0001', 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'after-failover' }),
    });
    expect(late.status).toBe(201);
  });
});
