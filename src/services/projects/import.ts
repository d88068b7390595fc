import type { Logger } from 'pino';
import type { Role } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findProjectById, unfinishedImportIds, updateProjectRow, type ProjectRow } from '../../db/tables/projects.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { protectDefaultBranch } from '../repository/protected-refs.js';
import { GitError } from '../../git/cli.js';
import { hasRepository } from '../../git/in-repository.js';
import { cloneBareRepository, removeRepository } from '../../git/repositories.js';
import { repositoryPath, stagingRepositoryPath } from '../../storage/layout.js';
import { nowIso } from '../../storage/clock.js';
import { forkCloneSource, projectFullPath } from './fork.js';
import { maskUrlCredentials, OUTBOUND_GIT_PROTOCOLS, pinnedGitConfig } from '../outbound-git.js';

/** A clone may take a while for a big repository, but never holds a worker slot forever. */
const CLONE_TIMEOUT_MS = 30 * 60_000;

interface CloneSource {
  readonly source: string;
  readonly config: readonly string[];
  /** Local paths in git's messages, each with the name users know it by. */
  readonly labels: ReadonlyMap<string, string>;
}

/** Where the project's repository comes from: its import URL, else the project it forks; null when neither is left. */
function cloneSourceOf(db: Db, dataDir: string, project: ProjectRow): CloneSource | null {
  const own = projectFullPath(db, project);
  const labels = new Map([
    [stagingRepositoryPath(dataDir, project.id), own],
    [repositoryPath(dataDir, project.id), own],
  ]);
  if (project.import_url) return { source: project.import_url, config: OUTBOUND_GIT_PROTOCOLS, labels };
  const fork = forkCloneSource(db, dataDir, project);
  return fork === null ? null : { source: fork.path, config: [], labels: new Map([...labels, [fork.path, fork.label]]) };
}

/**
 * `import_error` text: git's own explanation, with repository paths on disk replaced by project
 * paths and any credentials in URLs masked (GitLab's UrlSanitizer).
 */
function importErrorText(error: unknown, labels: ReadonlyMap<string, string>): string {
  let text = error instanceof GitError ? error.stderr.trim() || error.message : error instanceof Error ? error.message : String(error);
  for (const [local, label] of labels) text = text.split(local).join(label);
  return maskUrlCredentials(text);
}

const setImportState = (db: Db, id: number, columns: Partial<Pick<ProjectRow, 'import_status' | 'import_error' | 'default_branch'>>) =>
  inTransaction(db, () => updateProjectRow(db, id, { ...columns, updated_at: nowIso() }));

/**
 * Runs one project's import: import_status goes scheduled -> started -> finished, or failed with
 * git's error text in import_error. A fork clones its source project's repository, an import its
 * import_url; either way through a staging directory renamed into place (git/repositories.ts),
 * so a repository at the final path is always whole. Resuming after a crash is safe: a repository
 * already renamed into place only needs the row marked finished. An abort (the site stopping)
 * rethrows and leaves the row `started`, for the next start to resume.
 */
export async function importProject(db: Db, dataDir: string, projectId: number, signal?: AbortSignal, allowLocal = false): Promise<void> {
  const project = findProjectById(db, projectId);
  if (!project || (project.import_status !== 'scheduled' && project.import_status !== 'started')) return;
  const from = cloneSourceOf(db, dataDir, project);
  if (!from) {
    setImportState(db, projectId, { import_status: 'failed', import_error: 'The project this was forked from was deleted before its repository was copied' });
    return;
  }
  setImportState(db, projectId, { import_status: 'started', import_error: null });
  try {
    const alreadyCloned = await hasRepository(repositoryPath(dataDir, projectId));
    const pinned = !alreadyCloned && project.import_url ? await pinnedGitConfig(project.import_url, allowLocal) : [];
    const head = alreadyCloned ? project.default_branch : await cloneBareRepository(dataDir, projectId, from.source, {
      defaultBranch: project.default_branch,
      config: [...from.config, ...pinned],
      signal,
      timeoutMs: CLONE_TIMEOUT_MS,
    });
    // Deleted while cloning: deleteProject found no repository yet, so this clone is ours to remove.
    if (!findProjectById(db, projectId)) return await removeRepository(dataDir, projectId);
    setImportState(db, projectId, { import_status: 'finished', import_error: null, default_branch: head });
    // An imported or forked repository arrives with its default branch: it is protected as a first push would have it.
    if (head) protectDefaultBranch(db, projectId, head);
    // Also on a resumed import: the crash may have come between the rename and this event.
    await recordRepositoryChange(db, dataDir, projectId, 'repository', 'created');
  } catch (error) {
    if (signal?.aborted) throw error;
    setImportState(db, projectId, { import_status: 'failed', import_error: importErrorText(error, from.labels) });
  }
}

export interface ImportWorkerOptions {
  readonly role: Role;
  /** The site's database, read at each use (a secondary swaps it when it bootstraps). */
  readonly db: () => Db;
  readonly dataDir: string;
  readonly log: Logger;
  /** Clones running at once. */
  readonly concurrency?: number;
  /** Import URLs may name loopback, link-local and private addresses (the application setting allow_local_requests_from_web_hooks_and_services), asked at each import. */
  readonly allowLocalRequests?: () => boolean;
  /** Set in a request worker: the background worker runs the clones, and this hands it the project. */
  readonly elsewhere?: (projectId: number) => void;
}

/**
 * Runs forks' and imports' clones in this process, a few at a time, in the order they were
 * scheduled. The projects row is the queue's truth: on start, rows left `scheduled` or
 * `started` by a crash or a stop are resumed (a clone restarts from nothing; a finished one is
 * only marked). Only the primary runs imports: on a secondary every method is a no-op, and the
 * resulting rows and repositories arrive by replication.
 */
export class ProjectImportWorker {
  private readonly queue: number[] = [];
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly cancel = new AbortController();
  private readonly concurrency: number;
  private started = false;
  private stopped = false;

  constructor(private readonly options: ImportWorkerOptions) {
    this.concurrency = options.concurrency ?? 4;
  }

  /** Whether this site runs imports: the primary, until stopped. */
  get runs(): boolean {
    return this.options.role === 'primary' && !this.stopped;
  }

  /** Queues the project's import; call it after the transaction that scheduled it committed. */
  schedule(projectId: number): void {
    if (this.runs && this.options.elsewhere) return this.options.elsewhere(projectId);
    if (!this.runs || this.inFlight.has(projectId) || this.queue.includes(projectId)) return;
    this.queue.push(projectId);
    // On a later turn, so the request that scheduled it answers first.
    if (this.started) setImmediate(() => this.pump());
  }

  /** Starts running, beginning with the imports a previous run left unfinished. */
  start(): void {
    if (!this.runs || this.started) return;
    this.started = true;
    const pending = unfinishedImportIds(this.options.db());
    if (pending.length) this.options.log.info({ projects: pending }, 'resuming unfinished project imports');
    for (const id of pending) this.schedule(id);
    setImmediate(() => this.pump());
  }

  /** Stops: clones in flight are killed and waited for, and stay `started` for the next start to resume. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.length = 0;
    this.cancel.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private pump(): void {
    while (this.runs && this.inFlight.size < this.concurrency && this.queue.length) {
      const id = this.queue.shift()!;
      const run = this.run(id).finally(() => {
        this.inFlight.delete(id);
        this.pump();
      });
      this.inFlight.set(id, run);
    }
  }

  private async run(projectId: number): Promise<void> {
    try {
      await importProject(this.options.db(), this.options.dataDir, projectId, this.cancel.signal, this.options.allowLocalRequests?.() ?? false);
    } catch (error) {
      // Stopping aborts the clone on purpose; the row stays `started` and the next start resumes it.
      if (this.cancel.signal.aborted) return;
      this.options.log.error({ err: error, project_id: projectId }, 'project import failed unexpectedly');
    }
  }
}
