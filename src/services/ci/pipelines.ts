import type { Db } from '../../db/connection.js';
import { findPipeline, listPipelines, pipelineJobs, updatePipelineStatus, type JobRow, type PipelineFilters, type PipelineRow, type PipelineStatus } from '../../db/tables/ci.js';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';

const COMPLETED: ReadonlySet<PipelineStatus> = new Set(['success', 'failed', 'canceled', 'skipped']);

/**
 * GitLab's aggregate status of a set of jobs (HasStatus.legacy_status): failed jobs that may fail
 * are ignored; all skipped is skipped, all success (skipped aside) is success, and so on; anything
 * running or pending makes it running; what is left is failed.
 */
export function aggregateStatus(jobs: readonly Pick<JobRow, 'status' | 'allow_failure'>[]): PipelineStatus {
  const relevant = jobs.filter((job) => !(job.status === 'failed' && job.allow_failure === 1));
  const count = (status: string) => relevant.filter((job) => job.status === status).length;
  const all = relevant.length;
  const [created, pending, running, success, skipped, canceled] = ['created', 'pending', 'running', 'success', 'skipped', 'canceled'].map(count);
  if (all === skipped) return 'skipped';
  if (all === success) return 'success';
  if (all === created) return 'created';
  if (all === success + skipped) return 'success';
  if (all === success + skipped + canceled) return 'canceled';
  if (all === created + skipped + pending) return 'pending';
  if (running + pending > 0) return 'running';
  if (created > 0) return 'running';
  return 'failed';
}

/** Recomputes a pipeline's status from its jobs, with its start and finish times; call inside the job's transaction. */
export function refreshPipeline(db: Db, pipeline: PipelineRow): PipelineRow {
  const status = aggregateStatus(pipelineJobs(db, pipeline.id));
  const now = nowIso();
  const started_at = pipeline.started_at ?? (status === 'running' || COMPLETED.has(status) ? now : null);
  const finished_at = COMPLETED.has(status) ? (pipeline.status === status && pipeline.finished_at ? pipeline.finished_at : now) : null;
  const next = { ...pipeline, status, updated_at: now, started_at, finished_at };
  updatePipelineStatus(db, pipeline.id, next);
  return next;
}

/** GET /projects/:id/pipelines. */
export function listProjectPipelines(db: Db, project: ProjectRow, filters: PipelineFilters, page: Page): Paged<PipelineRow> {
  return listPipelines(db, project.id, filters, page);
}

/** GET /projects/:id/pipelines/:pipeline_id. */
export function getPipeline(db: Db, project: ProjectRow, id: number): PipelineRow {
  const pipeline = findPipeline(db, project.id, id);
  if (!pipeline) throw notFound('Pipeline');
  return pipeline;
}
