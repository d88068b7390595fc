import type { JobArtifactRow, JobRow, PipelineRow } from '../db/tables/ci.js';
import type { UserRow } from '../db/tables/users.js';
import type { CommitRecord } from '../git/commit-log.js';
import { BLANK_SHA } from '../git/object-names.js';
import { flag, isoTime } from './column-values.js';
import { commitEntity } from './repository.js';
import { userBasic, type EntityContext } from './users.js';

/** What the CI views need besides the rows, preloaded per page (entities never query). */
export interface CiRelations {
  /** `<namespace full path>/<project path>`, for web URLs. */
  readonly projectPath: string;
  readonly users: ReadonlyMap<number, UserRow>;
  readonly pipelines: ReadonlyMap<number, PipelineRow>;
  readonly artifacts: ReadonlyMap<number, JobArtifactRow>;
  readonly commits: ReadonlyMap<string, CommitRecord>;
}

const seconds = (start: string | null, end: string | null): number | null =>
  start ? ((end ? Date.parse(end) : Date.now()) - Date.parse(start)) / 1000 : null;

/** CommitStatus, as POST /projects/:id/statuses/:sha and the statuses list show it. */
export function commitStatusView(job: JobRow, rel: Pick<CiRelations, 'users'>, ctx: EntityContext) {
  const author = job.user_id === null ? undefined : rel.users.get(job.user_id);
  return {
    id: job.id,
    sha: job.sha,
    ref: job.ref,
    status: job.status,
    name: job.name,
    target_url: job.target_url,
    description: job.description,
    created_at: isoTime(job.created_at),
    started_at: isoTime(job.started_at),
    finished_at: isoTime(job.finished_at),
    allow_failure: flag(job.allow_failure),
    coverage: job.coverage,
    author: author ? userBasic(author, ctx) : null,
  };
}

/** PipelineBasic: lists and the pipeline embedded in a job. */
export function pipelineBasic(pipeline: PipelineRow, rel: Pick<CiRelations, 'projectPath'>, ctx: EntityContext) {
  return {
    id: pipeline.id,
    sha: pipeline.sha,
    ref: pipeline.ref,
    status: pipeline.status,
    web_url: `${ctx.externalUrl}/${rel.projectPath}/pipelines/${pipeline.id}`,
    created_at: isoTime(pipeline.created_at),
    updated_at: isoTime(pipeline.updated_at),
  };
}

/** Pipeline: one pipeline. */
export function pipelineView(pipeline: PipelineRow, rel: Pick<CiRelations, 'projectPath' | 'users'>, ctx: EntityContext) {
  const user = pipeline.user_id === null ? undefined : rel.users.get(pipeline.user_id);
  return {
    ...pipelineBasic(pipeline, rel, ctx),
    before_sha: BLANK_SHA,
    tag: false,
    yaml_errors: null,
    user: user ? userBasic(user, ctx) : null,
    started_at: isoTime(pipeline.started_at),
    finished_at: isoTime(pipeline.finished_at),
    committed_at: null,
    duration: seconds(pipeline.started_at, pipeline.finished_at),
    coverage: null,
  };
}

/**
 * A job's commit: GitLab's Commit entity, whose short_id here is git's default abbreviation (7);
 * a commit not on disk (a secondary still syncing) shows its sha alone.
 */
function jobCommit(sha: string, commit: CommitRecord | undefined) {
  return commit ? { ...commitEntity(commit), short_id: commit.id.slice(0, 7) } : { id: sha, short_id: sha.slice(0, 8) };
}

/** Job. */
export function jobView(job: JobRow, rel: CiRelations, ctx: EntityContext) {
  const user = job.user_id === null ? undefined : rel.users.get(job.user_id);
  const pipeline = rel.pipelines.get(job.pipeline_id);
  const artifact = rel.artifacts.get(job.id);
  return {
    id: job.id,
    status: job.status,
    stage: job.stage,
    name: job.name,
    ref: job.ref,
    tag: false,
    coverage: job.coverage,
    allow_failure: flag(job.allow_failure),
    created_at: isoTime(job.created_at),
    started_at: isoTime(job.started_at),
    finished_at: isoTime(job.finished_at),
    duration: seconds(job.started_at, job.finished_at),
    user: user ? userBasic(user, ctx) : null,
    commit: jobCommit(job.sha, rel.commits.get(job.sha)),
    pipeline: pipeline ? { id: pipeline.id, sha: pipeline.sha, ref: pipeline.ref, status: pipeline.status } : null,
    web_url: `${ctx.externalUrl}/${rel.projectPath}/-/jobs/${job.id}`,
    artifacts_file: artifact ? { filename: artifact.filename, size: artifact.size } : null,
    artifacts: artifact ? [{ file_type: artifact.file_type, size: artifact.size, filename: artifact.filename, file_format: 'zip' }] : [],
    artifacts_expire_at: null,
    runner: null,
  };
}
