import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { openDatabase } from '../../src/db/connection.js';
import { recordRepositoryChange, repositoryOnDisk, type RepositoryType } from '../../src/geo/repository-events.js';
import { streamGit } from '../../src/git/cli.js';
import { createWikiRepository } from '../../src/git/repositories.js';
import { ROOT_TOKEN } from './geoforge.js';
import { mapLimit } from './pool.js';

/** A repository or wiki the primary hosts, with its absolute path there and its path relative to the data dir. */
export interface SeededRepository {
  readonly projectId: number;
  readonly type: RepositoryType;
  /** Relative to the data dir, with `/`: the same on the primary and on a secondary. */
  readonly relative: string;
}

export interface RepositorySeed {
  /** Small projects: two commits and a tag, and a wiki of two commits. */
  readonly small: number;
  /** Medium projects: two commits of 1 MiB of random bytes each, no wiki. */
  readonly medium: number;
}

/** Projects in flight at once: the API (on the server core) and the git writes here (load core) overlap. */
const SEED_PARALLEL = 6;
const MEDIUM_FILE_BYTES = 256 * 1024;
const MEDIUM_FILES_PER_COMMIT = 4;
/** Fixed commit times, so a seed is the same whatever the clock. */
const EPOCH_S = 1_600_000_000;

/**
 * Seeds a running primary: the projects through its API (rows, bare repository and its first
 * repository_states row, exactly as a user's create), then each repository's content written
 * with `git fast-import` straight into the bare repository on disk (no 2,000 pushes), each
 * change then recorded through the primary's own recordRepositoryChange (refs checksum into
 * repository_states plus the blob event), as a push would. Returns every repository and wiki.
 */
export async function seedRepositories(primaryUrl: string, dataDir: string, seed: RepositorySeed): Promise<SeededRepository[]> {
  const namespaceId = await createGroup(primaryUrl, 'bench-geo');
  const db = openDatabase(path.join(dataDir, 'geoforge.sqlite'));
  try {
    const specs = [
      ...Array.from({ length: seed.medium }, (_, i) => ({ name: `medium-${i + 1}`, medium: true })),
      ...Array.from({ length: seed.small }, (_, i) => ({ name: `small-${i + 1}`, medium: false })),
    ];
    const perProject = await mapLimit(specs, SEED_PARALLEL, async (spec): Promise<SeededRepository[]> => {
      const projectId = await createProject(primaryUrl, namespaceId, spec.name);
      const repository = repositoryOnDisk(dataDir, projectId, 'repository');
      await fastImport(repository, spec.medium ? mediumHistory() : smallHistory(spec.name));
      await recordRepositoryChange(db, dataDir, projectId, 'repository', 'updated');
      if (spec.medium) return [seeded(dataDir, projectId, 'repository')];
      await fastImport(await createWikiRepository(dataDir, projectId), wikiHistory(spec.name));
      await recordRepositoryChange(db, dataDir, projectId, 'wiki', 'created');
      return [seeded(dataDir, projectId, 'repository'), seeded(dataDir, projectId, 'wiki')];
    });
    const repositories = perProject.flat();
    assertInventory(db, repositories.length);
    return repositories;
  } finally {
    db.close();
  }
}

const seeded = (dataDir: string, projectId: number, type: RepositoryType): SeededRepository => ({
  projectId,
  type,
  relative: path.relative(dataDir, repositoryOnDisk(dataDir, projectId, type)).split(path.sep).join('/'),
});

/** The primary's inventory (what a secondary must hold) names exactly the seeded repositories and wikis. */
function assertInventory(db: ReturnType<typeof openDatabase>, expected: number): void {
  const inventory = db
    .prepare('SELECT (SELECT count(*) FROM repository_states WHERE repository_checksum IS NOT NULL) + (SELECT count(*) FROM repository_states WHERE wiki_checksum IS NOT NULL)')
    .pluck()
    .get() as number;
  if (inventory !== expected) throw new Error(`the primary's repository_states lists ${inventory} repositories and wikis, ${expected} were seeded`);
}

async function api<T>(url: string, body: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Private-Token': ROOT_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as T;
  if (response.status !== 201) throw new Error(`POST ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A group holds the projects: root's personal namespace has a projects limit. */
async function createGroup(primaryUrl: string, name: string): Promise<number> {
  return (await api<{ id: number }>(`${primaryUrl}/api/v4/groups`, { name, path: name, visibility: 'private' })).id;
}

async function createProject(primaryUrl: string, namespaceId: number, name: string): Promise<number> {
  const body = { name, path: name, namespace_id: namespaceId, visibility: 'private', default_branch: 'master', wiki_enabled: true };
  return (await api<{ id: number }>(`${primaryUrl}/api/v4/projects`, body)).id;
}

interface Commit {
  readonly message: string;
  readonly files: Readonly<Record<string, Buffer | string>>;
}

interface History {
  readonly commits: readonly Commit[];
  /** An annotated tag on the last commit. */
  readonly tag?: string;
}

const smallHistory = (name: string): History => ({
  commits: [
    { message: `Initial ${name}`, files: { 'README.md': `# ${name}\n\nSeeded by the geo-initial-sync bench.\n`, 'src/main.txt': `main of ${name}\n` } },
    { message: `Second commit of ${name}`, files: { 'src/main.txt': `main of ${name}, changed\n`, 'CHANGELOG.md': `- ${name}: second commit\n` } },
  ],
  tag: 'v1.0',
});

const wikiHistory = (name: string): History => ({
  commits: [
    { message: 'Create home', files: { 'home.md': `# Home of ${name}\n` } },
    { message: 'Add a page', files: { 'home.md': `# Home of ${name}\n\nSee [setup](setup).\n`, 'setup.md': `# Setup of ${name}\n` } },
  ],
});

/** About 2 MiB of incompressible content: what packs and transfers cost is the bytes. */
const mediumHistory = (): History => ({
  commits: [1, 2].map((n) => ({
    message: `Add data part ${n}`,
    files: Object.fromEntries(Array.from({ length: MEDIUM_FILES_PER_COMMIT }, (_, i) => [`data/part-${n}-${i}.bin`, randomBytes(MEDIUM_FILE_BYTES)])),
  })),
});

/** Writes the history onto refs/heads/master of an existing bare repository with one `git fast-import`. */
async function fastImport(repository: string, history: History): Promise<void> {
  const parts: Buffer[] = [];
  const text = (value: string) => parts.push(Buffer.from(value));
  const data = (value: Buffer | string) => {
    const bytes = typeof value === 'string' ? Buffer.from(value) : value;
    text(`data ${bytes.length}\n`);
    parts.push(bytes, Buffer.from('\n'));
  };
  history.commits.forEach((commit, i) => {
    text(`commit refs/heads/master\ncommitter Bench <bench@example.com> ${EPOCH_S + i * 60} +0000\n`);
    data(commit.message);
    for (const [file, content] of Object.entries(commit.files)) {
      text(`M 644 inline ${file}\n`);
      data(content);
    }
  });
  if (history.tag) {
    text(`tag ${history.tag}\nfrom refs/heads/master\ntagger Bench <bench@example.com> ${EPOCH_S + 3600} +0000\n`);
    data(`Release ${history.tag}`);
  }
  const git = streamGit(['--git-dir', repository, 'fast-import', '--quiet']);
  git.stdout.resume();
  git.stdin.end(Buffer.concat(parts));
  await git.done;
}
