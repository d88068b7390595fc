import { Router, type Request } from 'express';
import { commitStatusView } from '../../entities/ci.js';
import { badRequest } from '../../errors.js';
import { loadCiRelations } from '../../services/ci/jobs.js';
import { createCommitStatus, listCommitStatuses, STATUS_STATES } from '../../services/ci/statuses.js';
import { findVisibleProject } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { bool, idOrPath, oneOf, readParams, required, str } from '../params.js';
import { sendJson } from '../respond.js';

/** Commit statuses (GITLAB-NOTES 5, "Commit statuses / pipelines"): each is a job of the commit's pipeline. */
export function commitStatusesRouter(ctx: SiteContext): Router {
  const router = Router();
  const project = (req: Request) => findVisibleProject(ctx.db, req.actor, idOrPath(String(req.params.id)));

  router.post('/projects/:id/statuses/:sha', async (req, res) => {
    const actor = requireActor(req);
    const row = project(req);
    const params = readParams(req.input, {
      state: required(oneOf(STATUS_STATES)),
      ref: str({ max: 255 }),
      name: str({ max: 255 }),
      context: str({ max: 255 }),
      target_url: str({ max: 2048 }),
      description: str({ max: 255 }),
      coverage: coverage(),
    });
    const { job } = await createCommitStatus(ctx.db, ctx.config.dataDir, actor, row, String(req.params.sha), {
      state: params.state,
      ref: params.ref,
      name: params.name || params.context,
      target_url: params.target_url,
      description: params.description,
      coverage: params.coverage,
    });
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { jobs: [job] });
    sendJson(res, 201, commitStatusView(job, rel, ctx));
  });

  router.get('/projects/:id/repository/commits/:sha/statuses', async (req, res) => {
    const row = project(req);
    // `all` keeps retried statuses too; a status here is updated in place, so nothing is ever retried.
    const { ref, stage, name } = readParams(req.input, { ref: str(), stage: str(), name: str(), all: bool() });
    const page = readPage(req.input);
    const result = listCommitStatuses(ctx.db, req.actor, row, String(req.params.sha), { ref: ref || undefined, stage: stage || undefined, name: name || undefined }, page);
    const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, row, { jobs: result.rows });
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((job) => commitStatusView(job, rel, ctx)), result.total);
  });
  return router;
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
