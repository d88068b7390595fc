import { runGit } from './cli.js';

/** A bundle of a whole repository may take long; an hour bounds a hung git. */
const BUNDLE_TIMEOUT_MS = 60 * 60_000;

/** The refs of a bare repository, name -> object id (HEAD left out). */
export async function listRefs(repository: string): Promise<Record<string, string>> {
  const { stdout } = await runGit(['--git-dir', repository, 'for-each-ref', '--format=%(objectname) %(refname)'], { timeoutMs: BUNDLE_TIMEOUT_MS });
  return refsOf(stdout);
}

/** The ref HEAD names (refs/heads/...), or null when HEAD is detached. */
export async function headRef(repository: string): Promise<string | null> {
  return runGit(['--git-dir', repository, 'symbolic-ref', '--quiet', 'HEAD']).then(
    ({ stdout }) => stdout.trim() || null,
    () => null,
  );
}

/**
 * Writes every ref of `repository` and the objects they reach to the bundle `file`, in one pass
 * over the refs as they are when git reads them (a push landing meanwhile is in or out, whole).
 * Resolves to the refs the bundle holds, or null for a repository without refs (git refuses an
 * empty bundle; the caller records the repository as empty).
 */
export async function createBundle(repository: string, file: string): Promise<Record<string, string> | null> {
  if (Object.keys(await listRefs(repository)).length === 0) return null;
  await runGit(['--git-dir', repository, 'bundle', 'create', '--quiet', file, '--all'], { timeoutMs: BUNDLE_TIMEOUT_MS });
  return bundleRefs(file);
}

/** The refs a bundle file holds (HEAD left out). */
export async function bundleRefs(file: string): Promise<Record<string, string>> {
  const { stdout } = await runGit(['bundle', 'list-heads', file], { timeoutMs: BUNDLE_TIMEOUT_MS });
  return refsOf(stdout);
}

/** Creates the bare repository `target` with every ref of the bundle (none when `bundle` is null) and HEAD naming `head`. */
export async function restoreBundle(bundle: string | null, target: string, head: string | null): Promise<void> {
  await runGit(['init', '--bare', '--quiet', target]);
  if (bundle) await runGit(['--git-dir', target, 'fetch', '--quiet', '--no-write-fetch-head', bundle, '+refs/*:refs/*'], { timeoutMs: BUNDLE_TIMEOUT_MS });
  if (head) await runGit(['--git-dir', target, 'symbolic-ref', 'HEAD', head]);
}

function refsOf(text: string): Record<string, string> {
  const refs: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (sha && name && name !== 'HEAD') refs[name] = sha;
  }
  return refs;
}
