import type { ReadRouting } from '../geo/read-routing.js';
import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { Route } from '../routes.js';
import { artifactFile, downloadArtifact, removeArtifacts, uploadArtifact } from './artifacts.js';
import { addStatus, listStatuses, commitStatusParams, commitStatusQuery } from './commit-statuses.js';
import { jobId, jobQuery, listJobs, loadJob, showJob } from './jobs.js';
import { listPipelines, pipelineId, pipelineQuery, showPipeline } from './pipelines.js';

/**
 * Commit statuses, pipelines, jobs and job artifacts (GITLAB-NOTES 5; DESIGN "Beyond the SPEC").
 * Reads need read_build (reporters, and readers of a project whose jobs are public); writes need
 * push_code (GitLab's create_commit_status and update_build). Guards run in today's order: the
 * project (404), the route's parameters (400), read_build (403), the job (404), push_code (403).
 * `reads` routes artifact downloads on a secondary.
 */
export function ciRoutes(reads: ReadRouting | null): readonly Route[] {
  const project = loadProject();
  const readBuilds = requireAbility('read_build');
  const updateBuilds = requireAbility('push_code');
  return [
    { method: 'post', path: '/projects/:id/statuses/:sha', guards: [signedIn, project, commitStatusParams, updateBuilds], handler: addStatus },
    { method: 'get', path: '/projects/:id/repository/commits/:sha/statuses', guards: [project, commitStatusQuery, readBuilds], handler: listStatuses },

    { method: 'get', path: '/projects/:id/pipelines', guards: [project, pipelineQuery, readBuilds], handler: listPipelines },
    { method: 'get', path: '/projects/:id/pipelines/:pipeline_id', guards: [project, pipelineId, readBuilds], handler: showPipeline },

    { method: 'get', path: '/projects/:id/jobs', guards: [project, jobQuery, readBuilds], handler: listJobs },
    { method: 'get', path: '/projects/:id/jobs/:job_id', guards: [project, jobId, readBuilds, loadJob], handler: showJob },

    { method: 'post', path: '/projects/:id/jobs/:job_id/artifacts', guards: [signedIn, project, jobId, artifactFile, readBuilds, loadJob, updateBuilds], handler: uploadArtifact },
    { method: 'get', path: '/projects/:id/jobs/:job_id/artifacts', guards: [project, jobId, readBuilds, loadJob], handler: downloadArtifact(reads) },
    { method: 'delete', path: '/projects/:id/jobs/:job_id/artifacts', guards: [signedIn, project, jobId, readBuilds, loadJob, updateBuilds], handler: removeArtifacts },
  ];
}
