import { runGit } from './cli.js';

/**
 * The oldest git the site runs on: merge requests merge without a work tree through
 * `git merge-tree --write-tree`, which git 2.38 introduced (older gits only know the trivial
 * merge mode, whose output is no tree).
 */
const MIN_GIT_VERSION: readonly [number, number] = [2, 38];

/** `git version 2.39.5` (or `2.39.5.windows.1`, `2.40.0.rc1`) as [major, minor, patch]; null when unreadable. */
export function parseGitVersion(text: string): [number, number, number] | null {
  const match = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : null;
}

/** Whether a parsed version is at least MIN_GIT_VERSION. */
export const isSupportedGitVersion = ([major, minor]: readonly number[]): boolean =>
  major! > MIN_GIT_VERSION[0] || (major === MIN_GIT_VERSION[0] && minor! >= MIN_GIT_VERSION[1]);

let checked: Promise<string> | null = null;

/**
 * Checks the machine's git once per process and resolves to its version text; rejects with a
 * message that says what is wrong and what is needed, so a site never starts and then fails its
 * first merge with git's own usage text.
 */
export function requireGitVersion(): Promise<string> {
  checked ??= checkGitVersion();
  return checked;
}

/** The check itself, uncached (requireGitVersion keeps its answer). */
export async function checkGitVersion(): Promise<string> {
  const { stdout } = await runGit(['--version'], { timeoutMs: 10_000 });
  const text = stdout.trim();
  const version = parseGitVersion(text);
  const needed = `git >= ${MIN_GIT_VERSION.join('.')}`;
  if (!version) throw new Error(`could not read the git version from "${text}"; geoforge needs ${needed}`);
  if (!isSupportedGitVersion(version)) {
    throw new Error(`${text} is too old: geoforge needs ${needed} (merge requests merge with "git merge-tree --write-tree")`);
  }
  return version.join('.');
}
