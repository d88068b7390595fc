import path from 'node:path';
import type { Db } from '../../db/connection.js';
import { projectAccessLevels } from '../../db/tables/access.js';
import {
  directProjectLevels,
  forkCounts,
  groupLevelsOfNamespaces,
  namespacesByIds,
  projectsByIds,
  sharedGroups,
  usersByIds,
} from '../../db/tables/project-relations.js';
import { topicNamesOfProjects } from '../../db/tables/topics.js';
import { lfsObjectsSize as linkedLfsBytes } from '../../db/tables/lfs-objects.js';
import { notificationLevelsOf } from '../../db/tables/notification-settings.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { ProjectRelations, ProjectStatistics } from '../../entities/projects.js';
import { countCommits, directorySize } from '../../git/repositories.js';
import type { Actor } from '../users/authentication.js';
import { today } from '../../storage/clock.js';
import { isAdmin } from '../permissions.js';
import { ACCESS } from '../../db/levels.js';
import { projectArtifactsKey, repositoryPath, wikiRepositoryPath } from '../../storage/layout.js';

/**
 * Preloads what the project views need for a page of rows: one query per relation, whatever
 * the page size (CONVENTIONS: entities never query).
 */
export function loadProjectRelations(db: Db, actor: Actor | null, rows: readonly ProjectRow[]): ProjectRelations {
  const ids = rows.map((row) => row.id);
  const forkedFrom = projectsByIds(db, rows.flatMap((row) => (row.forked_from_project_id === null ? [] : [row.forked_from_project_id])));
  const all = [...rows, ...forkedFrom.values()];
  const namespaces = namespacesByIds(db, all.map((row) => row.namespace_id));
  const owners = usersByIds(db, [...namespaces.values()].flatMap((ns) => (ns.kind === 'user' && ns.owner_id !== null ? [ns.owner_id] : [])));
  const day = today();
  const userId = actor?.user.id;
  return {
    namespaces,
    owners,
    forkCounts: forkCounts(db, all.map((row) => row.id)),
    topics: topicNamesOfProjects(db, all.map((row) => row.id)),
    sharedGroups: sharedGroups(db, ids),
    forkedFrom,
    projectAccess: userId === undefined ? new Map() : directProjectLevels(db, userId, ids, day),
    groupAccess: userId === undefined ? new Map() : groupLevelsOfNamespaces(db, userId, rows.map((row) => row.namespace_id), day),
    effectiveAccess: effectiveLevels(db, actor, ids, day),
    notificationLevels: userId === undefined ? { projects: new Map(), groups: new Map() } : notificationLevelsOf(db, userId, ids, rows.map((row) => row.namespace_id)),
    statistics: null,
  };
}

function effectiveLevels(db: Db, actor: Actor | null, ids: number[], day: string): Map<number, number> {
  if (!actor) return new Map();
  if (isAdmin(actor)) return new Map(ids.map((id) => [id, ACCESS.owner]));
  return projectAccessLevels(db, actor.user.id, ids, day);
}

/** At most this many repositories are measured at once, so a page of 100 does not start 100 gits. */
const STATISTICS_CONCURRENCY = 8;

/**
 * Adds statistics for the rows whose statistics the caller may read (reporter and above, or an
 * admin). Sizes are measured on disk and commits counted by git, so they are always current.
 */
export async function withStatistics(rel: ProjectRelations, dataDir: string, rows: readonly ProjectRow[], db?: Db): Promise<ProjectRelations> {
  const allowed = rows.filter((row) => (rel.effectiveAccess.get(row.id) ?? ACCESS.none) >= ACCESS.reporter);
  const statistics = new Map<number, ProjectStatistics>();
  for (let start = 0; start < allowed.length; start += STATISTICS_CONCURRENCY) {
    const batch = allowed.slice(start, start + STATISTICS_CONCURRENCY);
    const measured = await Promise.all(batch.map((row) => measureProject(dataDir, row.id, db)));
    batch.forEach((row, index) => statistics.set(row.id, measured[index]));
  }
  return { ...rel, statistics };
}

/** A project's statistics: repository, wiki and job artifact bytes on disk, the commit count, and (given the database) the bytes of its linked LFS objects. */
export async function measureProject(dataDir: string, projectId: number, db?: Db): Promise<ProjectStatistics> {
  const repository = repositoryPath(dataDir, projectId);
  const [repositorySize, wikiSize] = await Promise.all([directorySize(repository), directorySize(wikiRepositoryPath(dataDir, projectId))]);
  // A repository not on disk (a secondary still syncing it) has no commits to count yet.
  const commitCount = repositorySize === 0 ? 0 : await countCommits(repository);
  const lfsObjectsSize = db ? linkedLfsBytes(db, projectId) : 0;
  const jobArtifactsSize = await directorySize(path.join(dataDir, projectArtifactsKey(projectId)));
  return {
    commit_count: commitCount,
    storage_size: repositorySize + wikiSize + lfsObjectsSize + jobArtifactsSize,
    repository_size: repositorySize,
    lfs_objects_size: lfsObjectsSize,
    job_artifacts_size: jobArtifactsSize,
  };
}
