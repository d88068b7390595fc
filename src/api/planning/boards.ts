import type { Request, Response } from 'express';
import type { LabelListRow } from '../../db/tables/board-lists.js';
import type { BoardRow } from '../../db/tables/boards.js';
import { boardList, boardView } from '../../entities/boards.js';
import { createBoard, deleteBoard, listBoards, loadBoardRelations } from '../../services/planning/boards.js';
import { createBoardList, deleteBoardList, listBoardLists, listIssuesOfList, moveBoardList, withLabels } from '../../services/planning/board-lists.js';
import type { SiteContext } from '../../site-context.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson, sendNoContent } from '../respond.js';
import { sendIssuePage } from '../issuables/issue-response.js';
import { boardCreateParams, boardOwner, boardParent, boardScopes, issueSource, listLabel, listMoveParams, namedBoard, namedList, type BoardKind } from './board-guards.js';

/** The handlers of one kind of board (a project's or a group's), over the guards its routes list. */
export function boardHandlers(kind: BoardKind) {
  const board = namedBoard(kind);
  const list = namedList(board);
  const label = listLabel(kind);
  const views = (ctx: SiteContext, req: Request, rows: readonly BoardRow[]) => {
    const rel = loadBoardRelations(ctx.db, rows);
    const parent = boardParent(ctx, req, kind);
    const viewCtx = { externalUrl: ctx.externalUrl, edition: ctx.config.edition };
    return rows.map((row) => boardView(row, parent, rel, viewCtx));
  };
  const sendList = (ctx: SiteContext, res: Response, status: number, row: LabelListRow) => {
    const [one] = withLabels(ctx.db, [row]);
    sendJson(res, status, boardList(one.list, one.label));
  };
  return {
    board,
    list,
    label,
    listBoards: (ctx: SiteContext, req: Request, res: Response) => {
      const page = paged.of(req);
      const result = listBoards(ctx.db, boardOwner(req, kind), page);
      sendPage(req, res, ctx.externalUrl, page, views(ctx, req, result.rows), result.total);
    },
    showBoard: (ctx: SiteContext, req: Request, res: Response) => sendJson(res, 200, views(ctx, req, [board.of(req)])[0]),
    addBoard: (ctx: SiteContext, req: Request, res: Response) => {
      const params = boardCreateParams.of(req);
      const input = { name: params.name, milestoneId: params.milestone_id, assigneeId: params.assignee_id, weight: params.weight, labels: params.labels };
      sendJson(res, 201, views(ctx, req, [createBoard(ctx.db, boardScopes(ctx, req, kind), input)])[0]);
    },
    removeBoard: (ctx: SiteContext, req: Request, res: Response) => {
      deleteBoard(ctx.db, board.of(req));
      sendNoContent(res);
    },
    listLists: (ctx: SiteContext, req: Request, res: Response) => {
      const page = paged.of(req);
      const result = listBoardLists(ctx.db, board.of(req), page);
      sendPage(req, res, ctx.externalUrl, page, withLabels(ctx.db, result.rows).map((one) => boardList(one.list, one.label)), result.total);
    },
    showList: (ctx: SiteContext, req: Request, res: Response) => sendList(ctx, res, 200, list.of(req)),
    addList: (ctx: SiteContext, req: Request, res: Response) => sendList(ctx, res, 201, createBoardList(ctx.db, board.of(req), label.of(req))),
    moveList: (ctx: SiteContext, req: Request, res: Response) => sendList(ctx, res, 200, moveBoardList(ctx.db, board.of(req), list.of(req), listMoveParams.of(req).position)),
    removeList: (ctx: SiteContext, req: Request, res: Response) => {
      assertUnmodifiedSince(unmodifiedSince.of(req), list.of(req).updated_at);
      deleteBoardList(ctx.db, board.of(req), list.of(req));
      sendNoContent(res);
    },
    listListIssues: (ctx: SiteContext, req: Request, res: Response) => {
      const page = paged.of(req);
      sendIssuePage(ctx, req, res, page, listIssuesOfList(ctx.db, req.actor, issueSource(req, kind), list.of(req), page));
    },
  };
}
