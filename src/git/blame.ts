import { git } from './in-repository.js';

/** Consecutive lines of a file that one commit last changed (GitLab's blame range). */
export interface BlameGroup {
  readonly commitId: string;
  readonly lines: string[];
}

const HEADER = /^([0-9a-f]{40}) \d+ \d+/;

/** `git blame --porcelain` of a file at a commit, grouped into runs of consecutive lines from the same commit. */
export async function blameFile(repository: string, commit: string, filePath: string): Promise<BlameGroup[]> {
  const { stdout } = await git(repository, ['blame', '--porcelain', commit, '--', filePath]);
  const groups: BlameGroup[] = [];
  let current = '';
  for (const line of stdout.split('\n')) {
    if (line.startsWith('\t')) {
      const last = groups[groups.length - 1];
      if (last && last.commitId === current) last.lines.push(line.slice(1));
      else groups.push({ commitId: current, lines: [line.slice(1)] });
      continue;
    }
    const header = HEADER.exec(line);
    if (header) current = header[1]!;
  }
  return groups;
}

