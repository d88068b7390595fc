import type { Request, Response } from 'express';
import { JOB_STATUSES } from '../../db/tables/ci.js';
import { pipelineBasic, pipelineView } from '../../entities/ci.js';
import { loadCiRelations } from '../../services/ci/jobs.js';
import { getPipeline, listProjectPipelines } from '../../services/ci/pipelines.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { oneOf, str } from '../params.js';
import { sendJson } from '../respond.js';

const PIPELINE_STATUSES = [...JOB_STATUSES, 'manual'] as const;

/** The list's filters and page, read before read_build is asked. */
export const pipelineQuery = paramsGuard(
  'pipelineQuery',
  {
    status: oneOf(PIPELINE_STATUSES),
    ref: str(),
    sha: str(),
    order_by: oneOf(['id', 'status', 'ref', 'user_id'] as const),
    sort: oneOf(['asc', 'desc'] as const),
    ...PAGE_PARAMS,
  },
  (params) => ({
    filters: { status: params.status, ref: params.ref || undefined, sha: params.sha || undefined, orderBy: params.order_by ?? 'id', sort: params.sort ?? 'desc' },
    page: pageOf(params),
  }),
);

export const pipelineId = pathId('pipeline_id');

export async function listPipelines(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { filters, page } = pipelineQuery.of(req);
  const result = listProjectPipelines(ctx.db, project, filters, page);
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, project, { pipelines: result.rows });
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((pipeline) => pipelineBasic(pipeline, rel, ctx)), result.total);
}

export async function showPipeline(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const pipeline = getPipeline(ctx.db, project, pipelineId.of(req));
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, project, { pipelines: [pipeline] });
  sendJson(res, 200, pipelineView(pipeline, rel, ctx));
}
