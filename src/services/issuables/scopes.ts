import type { Db } from '../../db/connection.js';
import { groupTreeIds, projectsIn, selfAndAncestorGroupIds } from '../../db/tables/groups.js';
import type { LabelScope } from '../../db/tables/labels.js';
import type { MilestoneScope } from '../../db/tables/milestones.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';

/** A project's labels: its own and those of its group and every group above (GitLab's include_ancestor_groups). */
export function projectLabelScope(db: Db, project: ProjectRow, includeAncestorGroups = true): LabelScope {
  return { projectId: project.id, groupIds: includeAncestorGroups ? selfAndAncestorGroupIds(db, project.namespace_id) : [] };
}

/** A group's labels: its own, and with `includeAncestorGroups` those of the groups above. */
export function groupLabelScope(db: Db, group: NamespaceRow, includeAncestorGroups: boolean): LabelScope {
  return { projectId: null, groupIds: includeAncestorGroups ? selfAndAncestorGroupIds(db, group.id) : [group.id] };
}

/** The milestones an issue of the project may take: the project's and those of its groups. */
export function projectMilestoneScope(db: Db, project: ProjectRow, includeGroups = true): MilestoneScope {
  return { projectIds: [project.id], groupIds: includeGroups ? selfAndAncestorGroupIds(db, project.namespace_id) : [] };
}

/** A group's milestones, with `includeAncestors` those of the groups above too. */
export function groupMilestoneScope(db: Db, group: NamespaceRow, includeAncestors: boolean): MilestoneScope {
  return { projectIds: [], groupIds: includeAncestors ? selfAndAncestorGroupIds(db, group.id) : [group.id] };
}

/** The ids of every project in the group and its subgroups. */
export function projectIdsInGroupTree(db: Db, group: NamespaceRow): number[] {
  return projectsIn(db, groupTreeIds(db, group.id)).map((project) => project.id);
}
