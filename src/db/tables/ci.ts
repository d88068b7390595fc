import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A JSON array parameter as a set, so one prepared statement serves every list length. */
const IDS = '(SELECT value FROM json_each(?))';

export const JOB_STATUSES = ['created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type PipelineStatus = JobStatus | 'manual';

export interface PipelineRow {
  id: number;
  project_id: number;
  sha: string;
  ref: string;
  status: PipelineStatus;
  user_id: number | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface JobRow {
  id: number;
  project_id: number;
  pipeline_id: number;
  name: string;
  stage: string;
  status: JobStatus;
  ref: string;
  sha: string;
  target_url: string | null;
  description: string | null;
  allow_failure: number;
  coverage: number | null;
  user_id: number | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface JobArtifactRow {
  id: number;
  project_id: number;
  job_id: number;
  file_type: 'archive';
  filename: string;
  size: number;
  sha256: string;
  created_at: string;
}

/* Pipelines */

/** The latest pipeline of a commit on a ref (GitLab's `pipeline_for(ref, sha)`). */
export function findPipelineFor(db: Db, projectId: number, sha: string, ref: string): PipelineRow | undefined {
  return prepare(db, 'SELECT * FROM ci_pipelines WHERE project_id = ? AND sha = ? AND ref = ? ORDER BY id DESC LIMIT 1').get(projectId, sha, ref) as
    | PipelineRow
    | undefined;
}

/** The latest pipeline of a commit on any ref. */
export function findLatestPipelineForSha(db: Db, projectId: number, sha: string): PipelineRow | undefined {
  return prepare(db, 'SELECT * FROM ci_pipelines WHERE project_id = ? AND sha = ? ORDER BY id DESC LIMIT 1').get(projectId, sha) as PipelineRow | undefined;
}

export function findPipeline(db: Db, projectId: number, id: number): PipelineRow | undefined {
  return prepare(db, 'SELECT * FROM ci_pipelines WHERE project_id = ? AND id = ?').get(projectId, id) as PipelineRow | undefined;
}

export function pipelinesByIds(db: Db, ids: readonly number[]): Map<number, PipelineRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, `SELECT * FROM ci_pipelines WHERE id IN ${IDS}`).all(JSON.stringify([...new Set(ids)])) as PipelineRow[];
  return new Map(rows.map((row) => [row.id, row]));
}

export function insertPipeline(db: Db, row: Omit<PipelineRow, 'id'>): PipelineRow {
  const result = prepare(
    db,
    `INSERT INTO ci_pipelines (project_id, sha, ref, status, user_id, created_at, updated_at, started_at, finished_at)
     VALUES (@project_id, @sha, @ref, @status, @user_id, @created_at, @updated_at, @started_at, @finished_at)`,
  ).run(row);
  return { id: Number(result.lastInsertRowid), ...row };
}

export function updatePipelineStatus(db: Db, id: number, fields: Pick<PipelineRow, 'status' | 'updated_at' | 'started_at' | 'finished_at'>): void {
  prepare(db, 'UPDATE ci_pipelines SET status = @status, updated_at = @updated_at, started_at = @started_at, finished_at = @finished_at WHERE id = @id').run({
    id,
    ...fields,
  });
}

export interface PipelineFilters {
  status?: string;
  ref?: string;
  sha?: string;
  orderBy: 'id' | 'status' | 'ref' | 'user_id';
  sort: 'asc' | 'desc';
}

export function listPipelines(db: Db, projectId: number, filters: PipelineFilters, page: Page): Paged<PipelineRow> {
  const where = ['project_id = ?'];
  const params: unknown[] = [projectId];
  for (const column of ['status', 'ref', 'sha'] as const) {
    if (filters[column] !== undefined) {
      where.push(`${column} = ?`);
      params.push(filters[column]);
    }
  }
  const direction = filters.sort === 'asc' ? 'ASC' : 'DESC';
  const order = filters.orderBy === 'id' ? `id ${direction}` : `${filters.orderBy} ${direction}, id ${direction}`;
  return selectPage<PipelineRow>(db, '*', `FROM ci_pipelines WHERE ${where.join(' AND ')}`, order, params, page);
}

/** A project's pipelines on any of these commits, newest first (a merge request's pipelines; index ci_pipelines_project_sha). */
export function listPipelinesForShas(db: Db, projectId: number, shas: readonly string[], page: Page): Paged<PipelineRow> {
  return selectPage<PipelineRow>(db, '*', 'FROM ci_pipelines WHERE project_id = ? AND sha IN (SELECT value FROM json_each(?))', 'id DESC', [projectId, JSON.stringify(shas)], page);
}

/* Jobs */

export function findJob(db: Db, projectId: number, id: number): JobRow | undefined {
  return prepare(db, 'SELECT * FROM ci_jobs WHERE project_id = ? AND id = ?').get(projectId, id) as JobRow | undefined;
}

export function findJobByName(db: Db, pipelineId: number, name: string): JobRow | undefined {
  return prepare(db, 'SELECT * FROM ci_jobs WHERE pipeline_id = ? AND name = ?').get(pipelineId, name) as JobRow | undefined;
}

export function pipelineJobs(db: Db, pipelineId: number): JobRow[] {
  return prepare(db, 'SELECT * FROM ci_jobs WHERE pipeline_id = ? ORDER BY id').all(pipelineId) as JobRow[];
}

export function insertJob(db: Db, row: Omit<JobRow, 'id'>): JobRow {
  const result = prepare(
    db,
    `INSERT INTO ci_jobs (project_id, pipeline_id, name, stage, status, ref, sha, target_url, description, allow_failure, coverage, user_id, created_at, started_at, finished_at)
     VALUES (@project_id, @pipeline_id, @name, @stage, @status, @ref, @sha, @target_url, @description, @allow_failure, @coverage, @user_id, @created_at, @started_at, @finished_at)`,
  ).run(row);
  return { id: Number(result.lastInsertRowid), ...row };
}

export function updateJob(db: Db, row: JobRow): void {
  prepare(
    db,
    `UPDATE ci_jobs SET status = @status, target_url = @target_url, description = @description, coverage = @coverage, user_id = @user_id,
       started_at = @started_at, finished_at = @finished_at WHERE id = @id`,
  ).run(row);
}

export interface JobFilters {
  /** Jobs of one commit (the statuses list). */
  sha?: string;
  ref?: string;
  stage?: string;
  name?: string;
  statuses?: readonly string[];
  sort: 'asc' | 'desc';
}

export function listJobs(db: Db, projectId: number, filters: JobFilters, page: Page): Paged<JobRow> {
  const where = ['project_id = ?'];
  const params: unknown[] = [projectId];
  for (const column of ['sha', 'ref', 'stage', 'name'] as const) {
    if (filters[column] !== undefined) {
      where.push(`${column} = ?`);
      params.push(filters[column]);
    }
  }
  if (filters.statuses?.length) {
    where.push(`status IN ${IDS}`);
    params.push(JSON.stringify(filters.statuses));
  }
  return selectPage<JobRow>(db, '*', `FROM ci_jobs WHERE ${where.join(' AND ')}`, `id ${filters.sort === 'asc' ? 'ASC' : 'DESC'}`, params, page);
}

/* Artifacts */

export function findJobArtifact(db: Db, jobId: number): JobArtifactRow | undefined {
  return prepare(db, "SELECT * FROM ci_job_artifacts WHERE job_id = ? AND file_type = 'archive'").get(jobId) as JobArtifactRow | undefined;
}

export function findJobArtifactById(db: Db, id: number): JobArtifactRow | undefined {
  return prepare(db, 'SELECT * FROM ci_job_artifacts WHERE id = ?').get(id) as JobArtifactRow | undefined;
}

export function artifactsByJobIds(db: Db, jobIds: readonly number[]): Map<number, JobArtifactRow> {
  if (!jobIds.length) return new Map();
  const rows = prepare(db, `SELECT * FROM ci_job_artifacts WHERE file_type = 'archive' AND job_id IN ${IDS}`).all(JSON.stringify(jobIds)) as JobArtifactRow[];
  return new Map(rows.map((row) => [row.job_id, row]));
}

export function insertJobArtifact(db: Db, row: Omit<JobArtifactRow, 'id'>): JobArtifactRow {
  const result = prepare(
    db,
    `INSERT INTO ci_job_artifacts (project_id, job_id, file_type, filename, size, sha256, created_at)
     VALUES (@project_id, @job_id, @file_type, @filename, @size, @sha256, @created_at)`,
  ).run(row);
  return { id: Number(result.lastInsertRowid), ...row };
}

export function deleteJobArtifact(db: Db, id: number): void {
  prepare(db, 'DELETE FROM ci_job_artifacts WHERE id = ?').run(id);
}
