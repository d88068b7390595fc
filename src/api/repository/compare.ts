import type { Request, Response } from 'express';
import { compareRefs } from '../../services/repository/compare.js';
import { repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { bool, readParams, required, str } from '../params.js';
import { sendJson } from '../respond.js';

export async function showCompare(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { from, to, straight } = readParams(req.input, { from: required(str()), to: required(str()), straight: bool() });
  sendJson(res, 200, await compareRefs(repositoryOf(ctx, projectOf(req)), from, to, straight ?? false));
}
