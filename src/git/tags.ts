import { GitError, runGit } from './cli.js';
import { git, hasRepository } from './in-repository.js';

/** A tag as git stores it: lightweight (target is the commit) or annotated (target is the tag object, with a message). */
export interface TagRecord {
  readonly name: string;
  /** The sha the ref holds: the tag object of an annotated tag, else the commit. */
  readonly target: string;
  /** The commit the tag names (peeled); null for a tag of a tree or blob. */
  readonly commitId: string | null;
  /** An annotated tag's message without its signature; null for a lightweight tag. */
  readonly message: string | null;
  /** The tagged commit's committer date, Unix seconds (GitLab's `updated` order). */
  readonly updatedAt: number;
}

const FIELD = '\x1f';
const RECORD = '\x1e';
const FORMAT = [
  '%(refname:strip=2)',
  '%(objectname)',
  '%(objecttype)',
  '%(*objectname)',
  '%(*objecttype)',
  '%(committerdate:unix)',
  '%(*committerdate:unix)',
  '%(contents)',
].join('%1f');

const withoutSignature = (message: string) => message.replace(/\n?-----BEGIN (PGP|SSH) SIGNATURE-----[\s\S]*$/, '').trimEnd();

/** Every tag, or only `name` when given; none for a missing repository. */
export async function listTags(repository: string, name?: string): Promise<TagRecord[]> {
  if (!(await hasRepository(repository))) return [];
  // No ref name holds a NUL byte, and git takes no argument with one (spawn throws): no such tag.
  if (name?.includes('\0')) return [];
  const pattern = name === undefined ? 'refs/tags/' : `refs/tags/${name}`;
  const { stdout } = await git(repository, ['for-each-ref', `--format=%1e${FORMAT}`, pattern]);
  return stdout
    .split(RECORD)
    .slice(1)
    .map((record) => {
      const [tagName, sha, type, peeled, peeledType, date, peeledDate, contents] = record.split(FIELD);
      const annotated = type === 'tag';
      const commitId = annotated ? (peeledType === 'commit' ? peeled! : null) : type === 'commit' ? sha! : null;
      return {
        name: tagName!,
        target: sha!,
        commitId,
        message: annotated ? withoutSignature(contents ?? '') : null,
        updatedAt: Number((annotated ? peeledDate : date) || 0),
      };
    })
    .filter((tag) => name === undefined || tag.name === name);
}

/** Whether git accepts `name` as a tag name. */
export async function isValidTagName(name: string): Promise<boolean> {
  if (!name || name.startsWith('-') || /[\x00-\x20\x7f]/.test(name)) return false;
  try {
    await runGit(['check-ref-format', `refs/tags/${name}`]);
    return true;
  } catch (error) {
    if (error instanceof GitError && error.exitCode === 1) return false;
    throw error;
  }
}

/**
 * Makes a tag at `sha`: lightweight, or annotated by the tagger when `message` is given (git tag
 * works in a bare repository). Fails (GitError) when the tag exists, so two creations never both win.
 */
export async function writeTag(repository: string, name: string, sha: string, message: string | null, tagger: { name: string; email: string }): Promise<void> {
  if (message === null) {
    await git(repository, ['update-ref', `refs/tags/${name}`, sha, '0'.repeat(40)]);
    return;
  }
  await git(repository, ['tag', '-a', '-m', message, '--', name, sha], { env: { GIT_COMMITTER_NAME: tagger.name, GIT_COMMITTER_EMAIL: tagger.email } });
}

/** Deletes a tag if it still holds `target`; fails (GitError) when it moved meanwhile. */
export async function removeTag(repository: string, name: string, target: string): Promise<void> {
  await git(repository, ['update-ref', '-d', `refs/tags/${name}`, target]);
}
