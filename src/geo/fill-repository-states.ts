import type { Db } from '../db/connection.js';
import { inTransaction, prepare } from '../db/connection.js';
import { nowIso } from '../storage/clock.js';
import { refsChecksum } from './repository-checksum.js';
import { recordRepositoryChange, repositoryOnDisk } from './repository-events.js';

export interface FillOptions {
  /** Projects read per query. */
  readonly pageSize?: number;
  /** Checksums computed at once (each is two short git commands). */
  readonly concurrency?: number;
}

interface State {
  readonly projectId: number;
  readonly repository: string | null;
  readonly wiki: string | null;
}

/**
 * Gives every project without a repository_states row one (projects from before Geo blob
 * replication, or whose checksum failed when they changed): the primary's inventory, which a
 * secondary's backfill compares with its registry, must name every repository and wiki on disk.
 * Walks the projects once in id order, a page at a time, checksums outside any transaction, and
 * never overwrites a row written meanwhile by a change (that one is newer). Resolves to the rows
 * written; rejects after the walk when some checksums failed (those projects stay missing and
 * are tried again at the next run).
 */
export async function fillRepositoryStates(db: Db, dataDir: string, options: FillOptions = {}): Promise<number> {
  const pageSize = options.pageSize ?? 100;
  const concurrency = options.concurrency ?? 4;
  const failures: unknown[] = [];
  let after = 0;
  let written = 0;
  for (;;) {
    const ids = prepare(
      db,
      'SELECT p.id FROM projects p LEFT JOIN repository_states s ON s.project_id = p.id WHERE s.id IS NULL AND p.id > ? ORDER BY p.id LIMIT ?',
    )
      .pluck()
      .all(after, pageSize) as number[];
    if (ids.length === 0) break;
    after = ids[ids.length - 1]!;
    const states: State[] = [];
    const queue = [...ids];
    const worker = async () => {
      for (let projectId = queue.shift(); projectId !== undefined; projectId = queue.shift()) {
        try {
          const [repository, wiki] = await Promise.all([
            refsChecksum(repositoryOnDisk(dataDir, projectId, 'repository')),
            refsChecksum(repositoryOnDisk(dataDir, projectId, 'wiki')),
          ]);
          states.push({ projectId, repository, wiki });
        } catch (error) {
          failures.push(new Error(`checksum the repositories of project ${projectId}`, { cause: error }));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, ids.length) }, worker));
    written += inTransaction(db, () => states.reduce((count, state) => count + insertMissingState(db, state), 0));
  }
  if (failures.length) throw new AggregateError(failures, `${failures.length} project(s) left without repository_states`);
  return written;
}

/** Inserts the row unless the project is gone or a change wrote one meanwhile; 1 when inserted. */
function insertMissingState(db: Db, state: State): number {
  const now = nowIso();
  return prepare(
    db,
    `INSERT INTO repository_states (project_id, repository_checksum, repository_updated_at, wiki_checksum, wiki_updated_at)
     SELECT id, ?, ?, ?, ? FROM projects WHERE id = ?
     ON CONFLICT (project_id) DO NOTHING`,
  ).run(state.repository, state.repository === null ? null : now, state.wiki, state.wiki === null ? null : now, state.projectId).changes;
}

/**
 * Issue 20, item 4: a primary killed between a change on disk (a push, a merge, a wiki page, a
 * README at creation) and its recordRepositoryChange leaves repository_states and the event log
 * describing the repository as it was before: secondaries would stay "synced" to the old refs
 * for good. Run once at the primary's start, this walks every project, compares each
 * repository's refs checksum on disk with the recorded one and records the change of every
 * repository on disk that differs (one event each). Reads refs files only, no git spawn. Resolves to the
 * repositories recorded; rejects after the walk when some could not be read.
 */
export async function reconcileRepositoryStates(db: Db, dataDir: string, options: FillOptions = {}): Promise<number> {
  const pageSize = options.pageSize ?? 100;
  const failures: unknown[] = [];
  let after = 0;
  let recorded = 0;
  for (;;) {
    const rows = prepare(
      db,
      `SELECT p.id, s.repository_checksum AS repository, s.wiki_checksum AS wiki
       FROM projects p JOIN repository_states s ON s.project_id = p.id WHERE p.id > ? ORDER BY p.id LIMIT ?`,
    ).all(after, pageSize) as { id: number; repository: string | null; wiki: string | null }[];
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      for (const type of ['repository', 'wiki'] as const) {
        try {
          const onDisk = await refsChecksum(repositoryOnDisk(dataDir, row.id, type));
          // A repository missing on disk is no change a crash kept unrecorded (a push never removes
          // one): left to the fill job and the secondaries' own checks.
          if (onDisk === null || onDisk === row[type]) continue;
          await recordRepositoryChange(db, dataDir, row.id, type, row[type] === null ? 'created' : 'updated');
          recorded++;
        } catch (error) {
          failures.push(new Error(`reconcile the ${type} of project ${row.id}`, { cause: error }));
        }
      }
    }
  }
  if (failures.length) throw new AggregateError(failures, `${failures.length} repositories not reconciled`);
  return recorded;
}
