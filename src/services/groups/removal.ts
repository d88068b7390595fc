import { groupTreeIds, projectsIn } from '../../db/tables/groups.js';
import { removeGroupWikiRepositories } from '../../git/repositories.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { findProjectById } from '../../db/tables/projects.js';
import type { GroupStatistics } from '../../entities/groups.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { deleteEmptyGroup } from './groups.js';
import { measureProject } from '../projects/relations.js';
import { deleteProject } from '../projects/projects.js';

/** Repositories measured at once for group statistics, so a page of groups does not start a git per project. */
const MEASURE_CONCURRENCY = 8;

/**
 * Group statistics (admins, `statistics=true`): the sums of the sizes of each group's own
 * projects, as GitLab's `with_statistics` joins project_statistics on the namespace.
 */
export async function groupStatistics(ctx: SiteContext, groups: readonly NamespaceRow[]): Promise<Map<number, GroupStatistics>> {
  const totals = new Map<number, GroupStatistics>(
    groups.map((row) => [row.id, { storage_size: 0, repository_size: 0, lfs_objects_size: 0, job_artifacts_size: 0 }]),
  );
  const work = projectsIn(ctx.db, groups.map((row) => row.id)).map((project) => ({ groupId: project.namespace_id, projectId: project.id }));
  for (let start = 0; start < work.length; start += MEASURE_CONCURRENCY) {
    const batch = work.slice(start, start + MEASURE_CONCURRENCY);
    const measured = await Promise.all(batch.map((item) => measureProject(ctx.config.dataDir, item.projectId, ctx.db)));
    batch.forEach((item, index) => {
      const sum = totals.get(item.groupId)!;
      sum.storage_size += measured[index].storage_size;
      sum.repository_size += measured[index].repository_size;
      sum.lfs_objects_size += measured[index].lfs_objects_size;
      sum.job_artifacts_size += measured[index].job_artifacts_size;
    });
  }
  return totals;
}

/**
 * Deletes a group with everything below it: the projects of every subgroup through the projects
 * service (so their repositories, wikis and avatars go too, and `actor`'s `destroyed` events name
 * them), then the groups, whose memberships,
 * shares and custom attributes follow through foreign keys, and their wiki repositories. The caller holds remove_group on it
 * (the route's guard).
 */
export async function deleteGroup(ctx: SiteContext, actor: Actor, group: NamespaceRow): Promise<void> {
  // A project created in the tree while we delete would block the group row: sweep until none is left.
  for (;;) {
    const projects = projectsIn(ctx.db, groupTreeIds(ctx.db, group.id));
    if (!projects.length) break;
    for (const { id } of projects) {
      const project = findProjectById(ctx.db, id);
      if (project) await deleteProject(ctx.db, ctx.config.dataDir, ctx.blobs, actor, project);
    }
  }
  await removeGroupWikiRepositories(ctx.config.dataDir, deleteEmptyGroup(ctx.db, group));
}
