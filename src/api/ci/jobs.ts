import type { Request, Response } from 'express';
import { JOB_STATUSES } from '../../db/tables/ci.js';
import { jobView } from '../../entities/ci.js';
import { getJob, listProjectJobs, loadCiRelations } from '../../services/ci/jobs.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard, pathId, valueGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { list, oneOf } from '../params.js';
import { sendJson } from '../respond.js';

/** The statuses to list (`scope[]`) and the page, read before read_build is asked. */
export const jobQuery = paramsGuard('jobQuery', { scope: list(oneOf(JOB_STATUSES)), ...PAGE_PARAMS }, (params) => ({ scope: params.scope, page: pageOf(params) }));

export const jobId = pathId('job_id');

/** The job :job_id names, of the loaded project (404 `Job`); list it after read_build, so a job's existence is not told to those who may not read jobs. */
export const loadJob = valueGuard('loadJob(:job_id)', (ctx, req) => getJob(ctx.db, projectOf(req), jobId.of(req)));

export async function listJobs(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { scope, page } = jobQuery.of(req);
  const result = listProjectJobs(ctx.db, project, scope, page);
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, project, { jobs: result.rows, commits: true });
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((job) => jobView(job, rel, ctx)), result.total);
}

export async function showJob(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const job = loadJob.of(req);
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, projectOf(req), { jobs: [job], commits: true });
  sendJson(res, 200, jobView(job, rel, ctx));
}
