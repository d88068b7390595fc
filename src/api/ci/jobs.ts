import { Router, type Request } from 'express';
import { JOB_STATUSES } from '../../db/tables/ci.js';
import { jobView, pipelineBasic, pipelineView } from '../../entities/ci.js';
import { badRequest } from '../../errors.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { deleteJobArtifacts, findJobArtifactFile, uploadJobArtifact } from '../../services/ci/artifacts.js';
import { getJob, listProjectJobs, loadCiRelations } from '../../services/ci/jobs.js';
import { getPipeline, listProjectPipelines } from '../../services/ci/pipelines.js';
import { findVisibleProject } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { idOrPath, list, oneOf, pathInt, readParams, str } from '../params.js';
import { sendJson, sendNoContent, sendStoredFile } from '../respond.js';

const PIPELINE_STATUSES = [...JOB_STATUSES, 'manual'] as const;

/** Pipelines, jobs and job artifacts (DESIGN "Beyond the SPEC"). */
export function jobsRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  const project = (req: Request) => findVisibleProject(ctx.db, req.actor, idOrPath(String(req.params.id)));

  router.get('/projects/:id/pipelines', async (req, res) => {
    const row = project(req);
    const filters = readParams(req.input, {
      status: oneOf(PIPELINE_STATUSES),
      ref: str(),
      sha: str(),
      order_by: oneOf(['id', 'status', 'ref', 'user_id'] as const),
      sort: oneOf(['asc', 'desc'] as const),
    });
    const page = readPage(req.input);
    const result = listProjectPipelines(
      ctx.db,
      req.actor,
      row,
      { status: filters.status, ref: filters.ref || undefined, sha: filters.sha || undefined, orderBy: filters.order_by ?? 'id', sort: filters.sort ?? 'desc' },
      page,
    );
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { pipelines: result.rows });
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((p) => pipelineBasic(p, rel, ctx)), result.total);
  });
  router.get('/projects/:id/pipelines/:pipeline_id', async (req, res) => {
    const row = project(req);
    const found = getPipeline(ctx.db, req.actor, row, pathInt(req.params.pipeline_id, 'pipeline_id'));
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { pipelines: [found] });
    sendJson(res, 200, pipelineView(found, rel, ctx));
  });

  router.get('/projects/:id/jobs', async (req, res) => {
    const row = project(req);
    const { scope } = readParams(req.input, { scope: list(oneOf(JOB_STATUSES)) });
    const page = readPage(req.input);
    const result = listProjectJobs(ctx.db, req.actor, row, scope, page);
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { jobs: result.rows, commits: true });
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((job) => jobView(job, rel, ctx)), result.total);
  });
  router.get('/projects/:id/jobs/:job_id', async (req, res) => {
    const row = project(req);
    const job = getJob(ctx.db, req.actor, row, pathInt(req.params.job_id, 'job_id'));
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { jobs: [job], commits: true });
    sendJson(res, 200, jobView(job, rel, ctx));
  });

  router.post('/projects/:id/jobs/:job_id/artifacts', async (req, res) => {
    const actor = requireActor(req);
    const row = project(req);
    const jobId = pathInt(req.params.job_id, 'job_id');
    const file = req.files.find((part) => part.field === 'file');
    if (!file) throw badRequest(req.input.file === undefined ? 'file is missing' : 'file is invalid');
    const job = await uploadJobArtifact(ctx.db, ctx.config.dataDir, actor, row, jobId, file);
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { jobs: [job], commits: true });
    sendJson(res, 201, jobView(job, rel, ctx));
  });
  router.get('/projects/:id/jobs/:job_id/artifacts', async (req, res) => {
    const row = project(req);
    const { artifact, file } = findJobArtifactFile(ctx.db, ctx.config.dataDir, req.actor, row, pathInt(req.params.job_id, 'job_id'));
    // A secondary without a synced copy has the primary answer.
    if (reads && !reads.isCurrent('job_artifact', artifact.id)) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, file, {
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${artifact.filename}"`, 'X-Content-Type-Options': 'nosniff' },
    });
  });
  router.delete('/projects/:id/jobs/:job_id/artifacts', async (req, res) => {
    const actor = requireActor(req);
    const row = project(req);
    await deleteJobArtifacts(ctx.db, ctx.config.dataDir, actor, row, pathInt(req.params.job_id, 'job_id'));
    sendNoContent(res);
  });
  return router;
}
