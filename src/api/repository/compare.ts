import type { Request, Response } from 'express';
import { compareRefs } from '../../services/repository/compare.js';
import { repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, required, str } from '../params.js';
import { sendJson } from '../respond.js';

export const compareParams = paramsGuard('compareParams', { from: required(str()), to: required(str()), straight: bool() });

export async function showCompare(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { from, to, straight } = compareParams.of(req);
  sendJson(res, 200, await compareRefs(repositoryOf(ctx, projectOf(req)), from, to, straight ?? false));
}
