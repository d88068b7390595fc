import type { Request, Response } from 'express';
import { mergeRequestApprovalsView, projectApprovalSettingsView } from '../../entities/merge-request-approvals.js';
import {
  approveMergeRequest,
  loadApprovalView,
  loadProjectApprovals,
  setApprovalsRequired,
  unapproveMergeRequest,
  updateApprovalSettings,
} from '../../services/merge-requests/approvals.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, int, required, requireAtLeastOne, str } from '../params.js';
import { sendJson } from '../respond.js';
import { readableMergeRequest } from './guards.js';

/** The approvals view of one merge request for the caller; `approvals_missing` in the GET, `approvals_left` after a write (SPEC "Approval status"). */
function sendApprovals(ctx: SiteContext, req: Request, res: Response, status: number, row: MergeRequestRow, leftKey: 'approvals_missing' | 'approvals_left'): void {
  const { state, users, approvers } = loadApprovalView(ctx.db, req.actor, projectOf(req), row);
  sendJson(res, status, mergeRequestApprovalsView(row, state, users, approvers, ctx, leftKey));
}

export function showApprovals(ctx: SiteContext, req: Request, res: Response): void {
  sendApprovals(ctx, req, res, 200, readableMergeRequest.of(req), 'approvals_missing');
}

export const approvalsRequiredParams = paramsGuard('approvalsRequiredParams', { approvals_required: required(int({ min: 0 })) });
export const mergeRequestApproveParams = paramsGuard('mergeRequestApproveParams', { sha: str() });

/** POST .../approvals (`approvals_required`): python-gitlab's `mr.approvals.update()`. */
export function changeApprovalsRequired(ctx: SiteContext, req: Request, res: Response): void {
  const { approvals_required } = approvalsRequiredParams.of(req);
  sendApprovals(ctx, req, res, 201, setApprovalsRequired(ctx.db, readableMergeRequest.of(req), approvals_required), 'approvals_left');
}

export function approve(ctx: SiteContext, req: Request, res: Response): void {
  const { sha } = mergeRequestApproveParams.of(req);
  const row = approveMergeRequest(ctx, requireActor(req), projectOf(req), readableMergeRequest.of(req), sha || undefined);
  sendApprovals(ctx, req, res, 201, row, 'approvals_left');
}

export function unapprove(ctx: SiteContext, req: Request, res: Response): void {
  sendApprovals(ctx, req, res, 201, unapproveMergeRequest(ctx, requireActor(req), projectOf(req), readableMergeRequest.of(req)), 'approvals_left');
}

export function showProjectApprovals(ctx: SiteContext, req: Request, res: Response): void {
  const { settings, approvers } = loadProjectApprovals(ctx.db, projectOf(req));
  sendJson(res, 200, projectApprovalSettingsView(settings, approvers, ctx));
}

const SETTINGS = ['approvals_before_merge', 'reset_approvals_on_push', 'disable_overriding_approvers_per_merge_request', 'merge_requests_author_approval'] as const;

export const approvalSettingsParams = paramsGuard(
  'approvalSettingsParams',
  {
    approvals_before_merge: int({ min: 0 }),
    reset_approvals_on_push: bool(),
    disable_overriding_approvers_per_merge_request: bool(),
    merge_requests_author_approval: bool(),
  },
  (params) => {
    requireAtLeastOne(params, SETTINGS);
    return params;
  },
);

/** POST /projects/:id/approvals: python-gitlab's `project.approvals.update()` (its `_update_uses_post`). */
export function changeProjectApprovals(ctx: SiteContext, req: Request, res: Response): void {
  const params = approvalSettingsParams.of(req);
  const numeric = (value: boolean | undefined) => (value === undefined ? undefined : value ? 1 : 0);
  const changes = Object.fromEntries(
    Object.entries({
      approvals_before_merge: params.approvals_before_merge,
      reset_approvals_on_push: numeric(params.reset_approvals_on_push),
      disable_overriding_approvers_per_merge_request: numeric(params.disable_overriding_approvers_per_merge_request),
      merge_requests_author_approval: numeric(params.merge_requests_author_approval),
    }).filter(([, value]) => value !== undefined),
  );
  const project = projectOf(req);
  updateApprovalSettings(ctx.db, project, changes);
  const { settings, approvers } = loadProjectApprovals(ctx.db, project);
  sendJson(res, 201, projectApprovalSettingsView(settings, approvers, ctx));
}
