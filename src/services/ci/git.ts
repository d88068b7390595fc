import { stat } from 'node:fs/promises';
import { runGit } from '../../git/cli.js';
import { repositoryPath } from '../../storage/layout.js';

const TIMEOUT_MS = 10_000;

/** The full sha of the commit `revision` names in the project's repository, or null (no repository, no such commit). */
export async function resolveCommit(dataDir: string, projectId: number, revision: string): Promise<string | null> {
  // Never an option to git, never a range or a reflog expression.
  if (!revision || revision.startsWith('-') || /[\s\0]|\.\.|@\{/.test(revision)) return null;
  const repository = repositoryPath(dataDir, projectId);
  if (!(await stat(repository).catch(() => null))) return null;
  const result = await runGit(['--git-dir', repository, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], {
    timeoutMs: TIMEOUT_MS,
  }).catch(() => null);
  const sha = result?.stdout.trim() ?? '';
  return /^[0-9a-f]{40}$/.test(sha) ? sha : null;
}

/** The branch a commit is on, the default branch first (GitLab's `branch_names_contains(sha).first`); null when none. */
export async function branchContaining(dataDir: string, projectId: number, sha: string, defaultBranch: string): Promise<string | null> {
  const result = await runGit(['--git-dir', repositoryPath(dataDir, projectId), 'for-each-ref', '--contains', sha, '--format=%(refname:short)', 'refs/heads'], {
    timeoutMs: TIMEOUT_MS,
  }).catch(() => null);
  const branches = (result?.stdout ?? '').split('\n').filter(Boolean);
  return branches.includes(defaultBranch) ? defaultBranch : (branches[0] ?? null);
}

/** GitLab's short Commit entity. */
export interface CommitSummary {
  id: string;
  short_id: string;
  title: string;
  created_at: string;
  parent_ids: string[];
  message: string;
  author_name: string;
  author_email: string;
  authored_date: string;
  committer_name: string;
  committer_email: string;
  committed_date: string;
}

const FORMAT = ['%H', '%h', '%s', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%P', '%B'].join('%x00') + '%x1e';

/** The commits of a page of jobs, read in one git call; a commit missing from disk (a secondary still syncing) is left out. */
export async function readCommits(dataDir: string, projectId: number, shas: readonly string[]): Promise<Map<string, CommitSummary>> {
  const unique = [...new Set(shas)].filter((sha) => /^[0-9a-f]{40}$/.test(sha));
  const out = new Map<string, CommitSummary>();
  if (!unique.length) return out;
  const result = await runGit(['--git-dir', repositoryPath(dataDir, projectId), 'show', '-s', '--no-color', `--format=${FORMAT}`, ...unique], {
    timeoutMs: TIMEOUT_MS,
  }).catch(() => null);
  if (!result) return out;
  for (const record of result.stdout.split('\x1e')) {
    const fields = record.replace(/^\n/, '').split('\0');
    if (fields.length < 11) continue;
    const [id, shortId, title, authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, parents, message] = fields;
    out.set(id, {
      id,
      short_id: shortId,
      title,
      created_at: committedDate,
      parent_ids: parents ? parents.split(' ') : [],
      message,
      author_name: authorName,
      author_email: authorEmail,
      authored_date: authoredDate,
      committer_name: committerName,
      committer_email: committerEmail,
      committed_date: committedDate,
    });
  }
  return out;
}
