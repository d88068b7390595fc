import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import {
  findJobByName,
  findLatestPipelineForSha,
  findPipelineFor,
  insertJob,
  insertPipeline,
  listJobs,
  updateJob,
  type JobFilters,
  type JobRow,
  type JobStatus,
  type PipelineRow,
} from '../../db/tables/ci.js';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { badRequest, notFound } from '../../errors.js';
import { repositoryPath } from '../../storage/layout.js';
import { branchContaining, resolveCommit } from '../../git/refs.js';
import type { Actor } from '../users/authentication.js';
import { nowIso } from '../../storage/clock.js';
import { refreshPipeline } from './pipelines.js';

export const STATUS_STATES = ['pending', 'running', 'success', 'failed', 'canceled'] as const;
export type StatusState = (typeof STATUS_STATES)[number];

export interface StatusInput {
  state: StatusState;
  ref?: string;
  name?: string;
  target_url?: string;
  description?: string;
  coverage?: number;
}

/** GitLab's state machine events (HasStatus): the states each may leave, and where it leads. */
const EVENTS = {
  enqueue: { from: ['created', 'skipped'], to: 'pending' },
  run: { from: ['pending'], to: 'running' },
  success: { from: ['created', 'pending', 'running'], to: 'success' },
  drop: { from: ['created', 'pending', 'running'], to: 'failed' },
  cancel: { from: ['created', 'pending', 'running'], to: 'canceled' },
} as const satisfies Record<string, { from: readonly JobStatus[]; to: JobStatus }>;
type Event = keyof typeof EVENTS;

/** What each API state fires, in order (API::CommitStatuses: `running` is `enqueue` then `run!`). */
const EVENTS_OF_STATE: Record<StatusState, { event: Event; strict: boolean }[]> = {
  pending: [{ event: 'enqueue', strict: true }],
  running: [
    { event: 'enqueue', strict: false },
    { event: 'run', strict: true },
  ],
  success: [{ event: 'success', strict: true }],
  failed: [{ event: 'drop', strict: true }],
  canceled: [{ event: 'cancel', strict: true }],
};

/** Applies the state's events to the job, with GitLab's timestamps; 400 with GitLab's text on an illegal transition. */
function transition(job: JobRow, state: StatusState, now: string): JobRow {
  let next = job;
  for (const { event, strict } of EVENTS_OF_STATE[state]) {
    const rule = EVENTS[event];
    if (!(rule.from as readonly string[]).includes(next.status)) {
      if (!strict) continue;
      throw badRequest(`Cannot transition status via :${event} from :${next.status} (Reason(s): Status cannot transition via "${event}")`);
    }
    next = { ...next, status: rule.to };
    if (rule.to === 'running') next.started_at = now;
    if (rule.to === 'success' || rule.to === 'failed' || rule.to === 'canceled') next.finished_at = now;
  }
  return next;
}

/**
 * POST /projects/:id/statuses/:sha, by an actor allowed push_code: creates or updates the job named `name` in the
 * commit's pipeline for the ref, creating that pipeline when missing, then recomputes the
 * pipeline's status. The ref defaults to the commit's latest pipeline's, then to a branch holding it.
 */
export async function createCommitStatus(
  db: Db,
  dataDir: string,
  actor: Actor,
  project: ProjectRow,
  revision: string,
  input: StatusInput,
): Promise<{ job: JobRow; pipeline: PipelineRow }> {
  const repository = repositoryPath(dataDir, project.id);
  const sha = await resolveCommit(repository, revision);
  if (!sha) throw notFound('Commit');
  const ref = input.ref || findLatestPipelineForSha(db, project.id, sha)?.ref || (await branchContaining(repository, sha, project.default_branch));
  if (!ref) throw notFound('References for commit');
  const name = input.name || 'default';
  return inTransaction(db, () => {
    const now = nowIso();
    const pipeline =
      findPipelineFor(db, project.id, sha, ref) ??
      insertPipeline(db, { project_id: project.id, sha, ref, status: 'created', user_id: actor.user.id, created_at: now, updated_at: now, started_at: null, finished_at: null });
    const existing = findJobByName(db, pipeline.id, name);
    const current: JobRow = existing ?? {
      id: 0,
      project_id: project.id,
      pipeline_id: pipeline.id,
      name,
      stage: 'external',
      status: 'created',
      ref,
      sha,
      target_url: null,
      description: null,
      allow_failure: 0,
      coverage: null,
      user_id: actor.user.id,
      created_at: now,
      started_at: null,
      finished_at: null,
    };
    const next = transition(
      {
        ...current,
        user_id: actor.user.id,
        target_url: input.target_url ?? current.target_url,
        description: input.description ?? current.description,
        coverage: input.coverage ?? current.coverage,
      },
      input.state,
      now,
    );
    let job: JobRow;
    if (existing) {
      updateJob(db, next);
      job = next;
    } else {
      const { id: _id, ...row } = next;
      job = insertJob(db, row);
    }
    // Merge when pipeline succeeds hears of the pipeline from the route (services/merge-requests/merge-when-pipeline-succeeds.ts).
    return { job, pipeline: refreshPipeline(db, pipeline) };
  });
}

/** GET /projects/:id/repository/commits/:sha/statuses: the commit's statuses, oldest first. */
export function listCommitStatuses(db: Db, project: ProjectRow, sha: string, filters: Omit<JobFilters, 'sha' | 'sort'>, page: Page): Paged<JobRow> {
  return listJobs(db, project.id, { ...filters, sha, sort: 'asc' }, page);
}
