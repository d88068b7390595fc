import type { Request, Response } from 'express';
import { commitStatusView } from '../../entities/ci.js';
import { badRequest } from '../../errors.js';
import { loadCiRelations } from '../../services/ci/jobs.js';
import { createCommitStatus, listCommitStatuses, STATUS_STATES } from '../../services/ci/statuses.js';
import { pipelineStatusChanged } from '../../services/merge-requests/merge-when-pipeline-succeeds.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { bool, oneOf, required, str } from '../params.js';
import { sendJson } from '../respond.js';

/** The status to set, read before push_code is asked. */
export const commitStatusParams = paramsGuard(
  'commitStatusParams',
  {
    state: required(oneOf(STATUS_STATES)),
    ref: str({ max: 255 }),
    name: str({ max: 255 }),
    context: str({ max: 255 }),
    target_url: str({ max: 2048 }),
    description: str({ max: 255 }),
    coverage: coverage(),
  },
  ({ state, ref, name, context, target_url, description, coverage }) => ({ state, ref, name: name || context, target_url, description, coverage }),
);

/** The list's filters and page, read before read_build is asked. */
// `all` keeps retried statuses too; a status here is updated in place, so nothing is ever retried.
export const commitStatusQuery = paramsGuard('commitStatusQuery', { ref: str(), stage: str(), name: str(), all: bool(), ...PAGE_PARAMS }, (params) => ({
  filters: { ref: params.ref || undefined, stage: params.stage || undefined, name: params.name || undefined },
  page: pageOf(params),
}));

/** A commit status is a job of the commit's pipeline (GITLAB-NOTES 5, "Commit statuses / pipelines"). */
export async function addStatus(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { job, pipeline } = await createCommitStatus(ctx.db, ctx.config.dataDir, requireActor(req), project, String(req.params.sha), commitStatusParams.of(req));
  // A pipeline that succeeded merges the merge requests waiting for it, in the background (issue 15, item 6).
  pipelineStatusChanged(ctx, pipeline);
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, project, { jobs: [job] });
  sendJson(res, 201, commitStatusView(job, rel, ctx));
}

export async function listStatuses(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { filters, page } = commitStatusQuery.of(req);
  const result = listCommitStatuses(ctx.db, project, String(req.params.sha), filters, page);
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, project, { jobs: result.rows });
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((job) => commitStatusView(job, rel, ctx)), result.total);
}

/** Grape's Float: a number, 400 `coverage is invalid` otherwise. */
function coverage() {
  return (raw: unknown, name: string): number | undefined => {
    const text = str()(raw, name);
    if (text === undefined || text === '') return undefined;
    const value = Number(text);
    if (!Number.isFinite(value)) throw badRequest(`${name} is invalid`);
    return value;
  };
}
