import type { Request } from 'express';
import type { LabelListRow } from '../../db/tables/board-lists.js';
import type { BoardOwner, BoardRow } from '../../db/tables/boards.js';
import type { LabelRow } from '../../db/tables/labels.js';
import { groupLabelScope, groupMilestoneScope, projectLabelScope, projectMilestoneScope } from '../../services/issuables/scopes.js';
import type { IssuableListSource } from '../../services/issuables/issuable-lists.js';
import { availableLabel, findBoardList } from '../../services/planning/board-lists.js';
import { findBoard, type BoardScopes } from '../../services/planning/boards.js';
import type { SiteContext } from '../../site-context.js';
import type { BoardParent } from '../../entities/boards.js';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import { groupOf, projectOf } from '../middleware/guards.js';
import { paramsGuard, pathId, valueGuard, type ValueGuard } from '../middleware/value-guards.js';
import { int, list, required, str } from '../params.js';

/** Whether a route serves a project's boards or a group's. */
export type BoardKind = 'project' | 'group';

/** The owner, label and milestone scopes of the boards a route addresses, from its loaded project or group. */
export function boardScopes(ctx: SiteContext, req: Request, kind: BoardKind): BoardScopes {
  if (kind === 'project') {
    const project = projectOf(req);
    return { owner: { projectId: project.id }, labels: projectLabelScope(ctx.db, project), milestones: projectMilestoneScope(ctx.db, project) };
  }
  const group = groupOf(req);
  return { owner: { groupId: group.id }, labels: groupLabelScope(ctx.db, group, true), milestones: groupMilestoneScope(ctx.db, group, true) };
}

export function boardOwner(req: Request, kind: BoardKind): BoardOwner {
  return kind === 'project' ? { projectId: projectOf(req).id } : { groupId: groupOf(req).id };
}

/** The project (with its namespace) or group a board view shows. */
export function boardParent(ctx: SiteContext, req: Request, kind: BoardKind): BoardParent {
  if (kind === 'group') return { group: groupOf(req) };
  const project = projectOf(req);
  const namespace = findNamespaceById(ctx.db, project.namespace_id);
  if (!namespace) throw new Error(`project ${project.id}: namespace ${project.namespace_id} is missing`);
  return { project, namespace };
}

/** Which issues a list of the board shows: its project's, or its group's and its subgroups'. */
export function issueSource(req: Request, kind: BoardKind): IssuableListSource {
  return kind === 'project' ? { project: projectOf(req) } : { group: groupOf(req) };
}

export const boardIdParam = pathId('board_id');
export const listIdParam = pathId('list_id');

/** The board the path names among the loaded project's or group's: 404 `Board`. List after loadProject or loadGroup and the read ability. */
export function namedBoard(kind: BoardKind): ValueGuard<BoardRow> {
  return valueGuard(`namedBoard(${kind})`, (ctx, req) => findBoard(ctx.db, boardOwner(req, kind), boardIdParam.of(req)));
}

/** The label list the path names on the board: `404 Not found`. */
export function namedList(board: ValueGuard<BoardRow>): ValueGuard<LabelListRow> {
  return valueGuard('namedList', (ctx, req) => findBoardList(ctx.db, board.of(req), listIdParam.of(req)));
}

export const boardCreateParams = paramsGuard('boardCreateParams', { name: required(str({ max: 255 })), milestone_id: int({ min: 0 }), assignee_id: int({ min: 0 }), weight: int({ min: 0 }), labels: list(str()) });

export const listCreateParams = paramsGuard('listCreateParams', { label_id: required(int()) });
export const listMoveParams = paramsGuard('listMoveParams', { position: required(int()) });

/** The label of a new list, among those the board may use: 400 `Label not found!`, checked before the ability as GitLab does. */
export function listLabel(kind: BoardKind): ValueGuard<LabelRow> {
  return valueGuard(`listLabel(${kind})`, (ctx, req) => availableLabel(ctx.db, boardScopes(ctx, req, kind).labels, listCreateParams.of(req).label_id));
}
