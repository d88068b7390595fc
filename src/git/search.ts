import { GitError } from './cli.js';
import { git } from './in-repository.js';

/** A search answers in this long or fails: git grep over a large tree must not hold a request. */
export const SEARCH_TIMEOUT_MS = 10_000;
/** More output than this is a failure (GitLab caps its results too), never a silent cut. */
const SEARCH_MAX_OUTPUT = 8 * 1024 * 1024;
/** Lines of context around the first match of a file (GitLab shows a few lines around it). */
const CONTEXT_LINES = 2;

/** The first matching chunk of one file: its path, the line it starts on, and its lines. */
export interface BlobMatch {
  readonly path: string;
  readonly startline: number;
  readonly data: string;
}

/**
 * The files of `commit` whose text contains `text` (case-insensitive, a fixed string, binary files
 * skipped), sorted by path, each with its first match and CONTEXT_LINES around it. git grep exits 1
 * when nothing matches: that is an empty answer.
 */
export async function grepBlobs(repository: string, commit: string, text: string): Promise<BlobMatch[]> {
  let stdout: string;
  try {
    ({ stdout } = await git(
      repository,
      ['grep', '-I', '-i', '-F', '-n', '-z', '--full-name', '--no-color', `-C${CONTEXT_LINES}`, '-e', text, commit, '--'],
      { timeoutMs: SEARCH_TIMEOUT_MS, maxOutputBytes: SEARCH_MAX_OUTPUT },
    ));
  } catch (error) {
    if (error instanceof GitError && error.exitCode === 1 && !error.stderr.trim()) return [];
    throw error;
  }
  return firstChunks(stdout, `${commit}:`);
}

/**
 * git grep -z prints `<commit>:<path>\0<line>\0<text>` for matches and context lines alike, with
 * `--` between chunks; each file's first chunk is kept.
 */
function firstChunks(stdout: string, prefix: string): BlobMatch[] {
  const files = new Map<string, { startline: number; lines: string[]; closed: boolean }>();
  let current: string | null = null;
  for (const line of stdout.split('\n')) {
    if (line === '--') {
      if (current) files.get(current)!.closed = true;
      continue;
    }
    const [head, number, ...text] = line.split('\0');
    if (!head?.startsWith(prefix) || !number || !/^\d+$/.test(number)) continue;
    const path = head.slice(prefix.length);
    if (current !== path && current) files.get(current)!.closed = true;
    current = path;
    const file = files.get(path);
    if (!file) files.set(path, { startline: Number(number), lines: [text.join('\0')], closed: false });
    else if (!file.closed) file.lines.push(text.join('\0'));
  }
  return [...files.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, file]) => ({ path, startline: file.startline, data: `${file.lines.join('\n')}\n` }));
}
