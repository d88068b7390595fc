import type { Request, Response } from 'express';
import { createMergeRequest } from '../../services/merge-requests/merge-requests.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { readableMergeRequest } from './guards.js';
import { mergeRequestCreateParams } from './params.js';
import { sendMergeRequest } from './response.js';

export function showMergeRequest(ctx: SiteContext, req: Request, res: Response): void {
  sendMergeRequest(ctx, req, res, 200, readableMergeRequest.of(req));
}

export async function addMergeRequest(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const created = await createMergeRequest(ctx, requireActor(req), projectOf(req), mergeRequestCreateParams.of(req));
  sendMergeRequest(ctx, req, res, 201, created);
}
