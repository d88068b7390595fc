import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { Edition } from './config.js';

/**
 * The GitLab release whose client-visible API we serve: 17.11, the last 17 minor, the first to
 * take `auto_merge` on the merge endpoint. Clients split it into three parts (GITLAB-NOTES 3.1).
 */
export const API_VERSION = '17.11.0';

/** Webhook payloads still follow the SPEC's 10.8 shapes, and their User-Agent names that level. */
export const HOOK_PAYLOAD_VERSION = '10.8.0';

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const packageVersion: string = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

export function versionString(edition: Edition): string {
  return `${API_VERSION}-${edition}`;
}

let revision: Promise<string> | null = null;

/** The short git revision of this checkout, read once per process without blocking; the package version when not a checkout. */
export function readRevision(): Promise<string> {
  revision ??= new Promise((resolve) => {
    execFile('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, timeout: 5000 }, (error, stdout) => {
      resolve(error ? packageVersion : stdout.trim() || packageVersion);
    });
  });
  return revision;
}
