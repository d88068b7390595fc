import type { LabelListRow } from '../db/tables/board-lists.js';
import type { BoardRow } from '../db/tables/boards.js';
import type { LabelRow } from '../db/tables/labels.js';
import type { MilestoneRow } from '../db/tables/milestones.js';
import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { ProjectRow } from '../db/tables/projects.js';
import type { UserRow } from '../db/tables/users.js';
import { labelBasic } from './labels.js';
import { userBasic, type EntityContext } from './users.js';

/** What the Board views need beyond the rows, loaded by services/planning/boards.ts for a page of boards. */
export interface BoardRelations {
  /** Each board's label lists by position. */
  readonly lists: ReadonlyMap<number, readonly LabelListRow[]>;
  /** The labels of the lists and the scoping labels, by id. */
  readonly labels: ReadonlyMap<number, LabelRow>;
  readonly scopingLabels: ReadonlyMap<number, readonly number[]>;
  readonly milestones: ReadonlyMap<number, MilestoneRow>;
  readonly assignees: ReadonlyMap<number, UserRow>;
}

/** Whose boards these are, as the view shows the owner: a project with its namespace, or a group. */
export type BoardParent = { readonly project: ProjectRow; readonly namespace: NamespaceRow } | { readonly group: NamespaceRow };

/** List (ENT List): a label list; the backlog and closed lists never reach a view. */
export function boardList(list: LabelListRow, label: LabelRow) {
  return { id: list.id, label: labelBasic(label), position: list.position };
}

function labelOf(id: number, rel: BoardRelations): LabelRow {
  const label = rel.labels.get(id);
  if (!label) throw new Error(`label ${id} was not preloaded`);
  return label;
}

/** The board's project as the SPEC's Board shows it (a reduced BasicProjectDetails). */
function boardProject(project: ProjectRow, namespace: NamespaceRow, ctx: EntityContext) {
  const fullPath = `${namespace.full_path}/${project.path}`;
  return {
    id: project.id,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: fullPath,
    http_url_to_repo: `${ctx.externalUrl}/${fullPath}.git`,
    web_url: `${ctx.externalUrl}/${fullPath}`,
  };
}

/**
 * Board (ENT Board with GitLab ee's additions): `id`, `name`, `project` (null on a group board),
 * `milestone` (`id`, `title`), `lists`; the ee edition adds `group` (null on a project board) and
 * the scoping fields `assignee`, `labels` and `weight`.
 */
export function boardView(board: BoardRow, parent: BoardParent, rel: BoardRelations, ctx: EntityContext & { readonly edition: 'ee' | 'ce' }) {
  const milestone = board.milestone_id === null ? undefined : rel.milestones.get(board.milestone_id);
  const view = {
    id: board.id,
    name: board.name,
    project: 'project' in parent ? boardProject(parent.project, parent.namespace, ctx) : null,
    milestone: milestone ? { id: milestone.id, title: milestone.title } : null,
    lists: (rel.lists.get(board.id) ?? []).map((list) => boardList(list, labelOf(list.label_id, rel))),
  };
  if (ctx.edition === 'ce') return view;
  const assignee = board.assignee_id === null ? undefined : rel.assignees.get(board.assignee_id);
  return Object.assign(view, {
    group: 'group' in parent ? { id: parent.group.id, name: parent.group.name, web_url: `${ctx.externalUrl}/groups/${parent.group.full_path}` } : null,
    assignee: assignee ? userBasic(assignee, ctx) : null,
    labels: (rel.scopingLabels.get(board.id) ?? []).map((id) => labelBasic(labelOf(id, rel))),
    weight: board.weight,
  });
}
