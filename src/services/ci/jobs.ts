import type { Db } from '../../db/connection.js';
import { artifactsByJobIds, findJob, listJobs, pipelinesByIds, type JobRow, type PipelineRow } from '../../db/tables/ci.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { CiRelations } from '../../entities/ci.js';
import { projectFullPath } from '../projects/fork.js';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import { readCommits } from '../../git/commit-log.js';
import { repositoryPath } from '../../storage/layout.js';

/** GET /projects/:id/jobs: newest first, optionally only the given statuses (`scope[]`). */
export function listProjectJobs(db: Db, project: ProjectRow, scope: readonly string[] | undefined, page: Page): Paged<JobRow> {
  return listJobs(db, project.id, { statuses: scope, sort: 'desc' }, page);
}

/** The job a path names, of this project; 404 `Job` otherwise. */
export function getJob(db: Db, project: ProjectRow, id: number): JobRow {
  const job = findJob(db, project.id, id);
  if (!job) throw notFound('Job');
  return job;
}

/**
 * Preloads what the CI views need for a page of jobs or pipelines: one query per relation and one
 * git call for the commits (only when asked: the statuses views show none). A commit missing from
 * disk (a secondary still syncing) is left out, and its job shows the sha alone.
 */
export async function loadCiRelations(
  db: Db,
  dataDir: string,
  project: ProjectRow,
  rows: { jobs?: readonly JobRow[]; pipelines?: readonly PipelineRow[]; commits?: boolean },
): Promise<CiRelations> {
  const jobs = rows.jobs ?? [];
  const pipelines = new Map((rows.pipelines ?? []).map((row) => [row.id, row]));
  for (const [id, row] of pipelinesByIds(db, jobs.map((job) => job.pipeline_id).filter((id) => !pipelines.has(id)))) pipelines.set(id, row);
  const userIds = [...jobs.map((job) => job.user_id), ...[...pipelines.values()].map((row) => row.user_id)].filter((id): id is number => id !== null);
  const commits = rows.commits ? await readCommits(repositoryPath(dataDir, project.id), jobs.map((job) => job.sha)) : [];
  return {
    projectPath: projectFullPath(db, project),
    users: usersByIds(db, userIds),
    pipelines,
    artifacts: artifactsByJobIds(db, jobs.map((job) => job.id)),
    commits: new Map(commits.map((commit) => [commit.id, commit])),
  };
}
