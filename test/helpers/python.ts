import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT_TOKEN, startSite, type TestSite } from './site.js';

// python-gitlab 3.12 comes from Debian (python3-gitlab) and exists only for the system interpreter,
// not for whatever python3 is first on PATH.
export const PYTHON = '/usr/bin/python3';

export const MISSING_CLIENT = `python-gitlab is not importable by ${PYTHON}; install the Debian package python3-gitlab (apt-get install python3-gitlab)`;

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the system python without a shell; resolves with the exit code instead of rejecting. No
 * __pycache__ is written (the client scripts import test/clients/python_gitlab_common.py).
 */
export function python(args: string[], env: Record<string, string> = {}, timeoutMs = 15_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(PYTHON, args, { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr: stderr || (error && typeof error.code !== 'number' ? String(error) : '') });
    });
  });
}

export interface PythonGitlabSuite {
  /** The site the scripts talk to (set in beforeAll). */
  readonly site: TestSite;
  /** `import gitlab; print(gitlab.__version__)` under PYTHON (set in beforeAll). */
  readonly probe: Run;
  /** Asserts the client is importable: every test fails (never skips) without it. */
  expectClient(): void;
  /** Runs one section of the script with its own unique names; returns its JSON observations (the last stdout line). */
  section(name: string, env?: Record<string, string>): Promise<any>;
}

/**
 * Registers beforeAll/afterAll in the calling describe: a fresh site plus a probe of the client.
 * `script` is a path, or the name of a script in test/clients. Sections get GEOFORGE_URL,
 * GEOFORGE_TOKEN (root, api+sudo) and a unique GEOFORGE_RUN suffix.
 */
export function pythonGitlabSuite(script: string, options: { timeoutMs?: number } = {}): PythonGitlabSuite {
  if (!path.isAbsolute(script)) script = fileURLToPath(new URL(`../clients/${script}`, import.meta.url));
  let site: TestSite | undefined;
  let probe: Run | undefined;

  beforeAll(async () => {
    probe = await python(['-c', 'import gitlab; print(gitlab.__version__)']);
    site = await startSite();
  });
  afterAll(() => site?.stop());

  const expectClient = () => expect(probe?.code, `${MISSING_CLIENT}\n${probe?.stderr}`).toBe(0);
  return {
    get site() {
      return site!;
    },
    get probe() {
      return probe!;
    },
    expectClient,
    async section(name, env = {}) {
      expectClient();
      const run = await python(
        [script, name],
        { GEOFORGE_URL: site!.url, GEOFORGE_TOKEN: ROOT_TOKEN, GEOFORGE_RUN: randomUUID().slice(0, 8), ...env },
        options.timeoutMs,
      );
      expect(run.code, `python-gitlab script section "${name}" failed:\n${run.stderr}\n${run.stdout}`).toBe(0);
      const lines = run.stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1]);
    },
  };
}
