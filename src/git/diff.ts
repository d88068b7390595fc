import { git } from './in-repository.js';

export interface DiffStats {
  readonly additions: number;
  readonly deletions: number;
}

export interface FileDiff {
  readonly oldPath: string;
  readonly newPath: string;
  readonly aMode: string;
  readonly bMode: string;
  readonly diff: string;
  readonly newFile: boolean;
  readonly renamedFile: boolean;
  readonly deletedFile: boolean;
}

/** One path a commit or a diff touched, renames seen as a removal and an addition (`--no-renames`). */
export interface PathChange {
  readonly change: 'added' | 'modified' | 'removed';
  readonly path: string;
}

/** git's empty tree: the "before" of a diff from nothing. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** The lines of `--name-status` output (`A\tpath`), other lines skipped; anything not added or deleted counts as modified. */
export function parseNameStatus(text: string): PathChange[] {
  const changes: PathChange[] = [];
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 1) continue;
    const change = line[0] === 'A' ? 'added' : line[0] === 'D' ? 'removed' : 'modified';
    changes.push({ change, path: line.slice(tab + 1) });
  }
  return changes;
}

/** The paths changed from `base` (null: the empty tree) to `head`. */
export async function changedPaths(repository: string, base: string | null, head: string): Promise<PathChange[]> {
  const { stdout } = await git(repository, ['diff', '--no-renames', '--name-status', base ?? EMPTY_TREE, head, '--']);
  return parseNameStatus(stdout);
}

const treeArgs = (base: string | null, head: string) => (base ? [base, head] : ['--root', head]);

/** Lines added and removed from `base` (null: the empty tree) to `head`. */
export async function diffStats(repository: string, base: string | null, head: string): Promise<DiffStats> {
  const { stdout } = await git(repository, ['diff-tree', '-r', '--no-commit-id', '--numstat', ...treeArgs(base, head)]);
  let additions = 0;
  let deletions = 0;
  for (const line of stdout.split('\n')) {
    const [added, removed] = line.split('\t');
    if (added && added !== '-') additions += Number(added) || 0;
    if (removed && removed !== '-') deletions += Number(removed) || 0;
  }
  return { additions, deletions };
}

/**
 * The file diffs from `base` (null: the empty tree) to `head`, renames detected, in one
 * `diff-tree --raw -p -z`: the raw listing (NUL-separated, exact paths and modes) comes first and
 * ends with an empty record, then the patch, one `diff --git` section per file in the same order,
 * so they are zipped by position (-z changes the listing only, never the patch text). `diff` holds
 * the hunks only, as GitLab shows them.
 */
export async function diffFiles(repository: string, base: string | null, head: string): Promise<FileDiff[]> {
  const { stdout } = await git(repository, ['diff-tree', '-r', '-z', '-M', '--no-commit-id', '--no-color', '--no-ext-diff', '--raw', '-p', ...treeArgs(base, head)]);
  // No path is empty, so the first empty record (two NULs) ends the listing.
  const end = stdout.indexOf('\0\0');
  const sections = end < 0 ? [] : stdout.slice(end + 2).split(/^diff --git /m).slice(1);
  const parts = (end < 0 ? stdout : stdout.slice(0, end + 1)).split('\0');
  const diffs: FileDiff[] = [];
  for (let i = 0; i < parts.length; ) {
    const meta = parts[i++];
    if (!meta || !meta.startsWith(':')) continue;
    const [aMode, bMode, , , status = ''] = meta.slice(1).split(' ');
    const first = parts[i++] ?? '';
    const renamed = status.startsWith('R') || status.startsWith('C');
    const second = renamed ? (parts[i++] ?? '') : first;
    const section = sections[diffs.length] ?? '';
    const hunk = section.search(/^@@ /m);
    const binary = section.match(/^Binary files .* differ$/m);
    diffs.push({
      oldPath: first,
      newPath: second,
      aMode: aMode === '000000' ? '0' : aMode!,
      bMode: bMode === '000000' ? '0' : bMode!,
      diff: hunk >= 0 ? section.slice(hunk) : binary ? `${binary[0]}\n` : '',
      newFile: status === 'A',
      renamedFile: status.startsWith('R'),
      deletedFile: status === 'D',
    });
  }
  return diffs;
}

/** An added or removed line of a diff, numbered as GitLab's Diff::Parser numbers it. */
export interface DiffLine {
  readonly type: 'new' | 'old';
  /** The line's number in the old file (removed lines) and the new one's counter at that point. */
  readonly oldPos: number;
  readonly newPos: number;
}

/**
 * The added (`new`) or removed (`old`) line of a file's hunks whose new-file counter is `line`,
 * as GitLab's commit comments find it (`line.new_pos == line && line.type == line_type`); null
 * when there is none (the comment is then a plain one).
 */
export function findDiffLine(hunks: string, line: number, type: 'new' | 'old'): DiffLine | null {
  let oldPos = 0;
  let newPos = 0;
  for (const text of hunks.split('\n')) {
    const header = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(text);
    if (header) {
      oldPos = Number(header[1]);
      newPos = Number(header[2]);
      continue;
    }
    const mark = text[0];
    if (mark === '+' || mark === '-') {
      const found: DiffLine = { type: mark === '+' ? 'new' : 'old', oldPos, newPos };
      if (found.type === type && newPos === line) return found;
      if (mark === '+') newPos += 1;
      else oldPos += 1;
    } else if (mark === ' ') {
      oldPos += 1;
      newPos += 1;
    }
  }
  return null;
}
