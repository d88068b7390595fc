import type { Request, Response } from 'express';
import type { IssuableListSource } from '../../services/issuables/issuable-lists.js';
import { listMergeRequests } from '../../services/merge-requests/lists.js';
import { createMergeRequest, deleteMergeRequest, updateMergeRequest } from '../../services/merge-requests/merge-requests.js';
import type { SiteContext } from '../../site-context.js';
import { assertUnmodifiedSince } from '../../services/unmodified-since.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { sendNoContent } from '../respond.js';
import { editableMergeRequest, readableMergeRequest } from './guards.js';
import { mergeRequestCreateParams, mergeRequestListParams, mergeRequestUpdateParams, myMergeRequestListParams } from './params.js';
import { sendMergeRequest, sendMergeRequestPage } from './response.js';

function sendList(ctx: SiteContext, req: Request, res: Response, source: IssuableListSource, read: ReturnType<typeof mergeRequestListParams.of>): void {
  sendMergeRequestPage(ctx, req, res, read.page, listMergeRequests(ctx.db, req.actor, source, read.filters, read.page), read.simple, { labelsDetails: read.labelsDetails });
}

export function listProjectMergeRequests(ctx: SiteContext, req: Request, res: Response): void {
  sendList(ctx, req, res, { project: projectOf(req) }, mergeRequestListParams.of(req));
}

export function listGroupMergeRequests(ctx: SiteContext, req: Request, res: Response): void {
  sendList(ctx, req, res, { group: groupOf(req) }, mergeRequestListParams.of(req));
}

export function listMyMergeRequests(ctx: SiteContext, req: Request, res: Response): void {
  sendList(ctx, req, res, { everywhere: true }, myMergeRequestListParams.of(req));
}

export function showMergeRequest(ctx: SiteContext, req: Request, res: Response): void {
  sendMergeRequest(ctx, req, res, 200, readableMergeRequest.of(req));
}

export async function addMergeRequest(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const created = await createMergeRequest(ctx, requireActor(req), projectOf(req), mergeRequestCreateParams.of(req));
  sendMergeRequest(ctx, req, res, 201, created);
}

export async function editMergeRequest(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const updated = await updateMergeRequest(ctx, requireActor(req), projectOf(req), editableMergeRequest.of(req), mergeRequestUpdateParams.of(req));
  sendMergeRequest(ctx, req, res, 200, updated);
}

export function removeMergeRequest(ctx: SiteContext, req: Request, res: Response): void {
  const mergeRequest = readableMergeRequest.of(req);
  assertUnmodifiedSince(unmodifiedSince.of(req), mergeRequest.updated_at);
  deleteMergeRequest(ctx, requireActor(req), projectOf(req), mergeRequest);
  sendNoContent(res);
}
