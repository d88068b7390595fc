import type { Request, Response } from 'express';
import { jobView } from '../../entities/ci.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { deleteJobArtifacts, findJobArtifactFile, uploadJobArtifact } from '../../services/ci/artifacts.js';
import { loadCiRelations } from '../../services/ci/jobs.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { uploadedFile } from '../middleware/value-guards.js';
import type { Handler } from '../routes.js';
import { sendBlob, sendNoContent, sendJson } from '../respond.js';
import { loadJob } from './jobs.js';

/** The archive, a multipart `file`. */
export const artifactFile = uploadedFile('file');

export async function uploadArtifact(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const job = await uploadJobArtifact(ctx.db, ctx.blobs, ctx.config.dataDir, project, loadJob.of(req), artifactFile.of(req));
  const rel = await loadCiRelations(ctx.db, ctx.config.dataDir, project, { jobs: [job], commits: true });
  sendJson(res, 201, jobView(job, rel, ctx));
}

/** The archive as a download; a secondary without a synced copy has the primary answer. */
export function downloadArtifact(reads: ReadRouting | null): Handler {
  return async (ctx, req, res) => {
    const { artifact, key } = findJobArtifactFile(ctx.db, loadJob.of(req));
    if (reads && !reads.isCurrent('job_artifact', artifact.id)) return reads.fromPrimary(req, res);
    await sendBlob(req, res, ctx.blobs, key, {
      filename: artifact.filename,
      headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${artifact.filename}"`, 'X-Content-Type-Options': 'nosniff' },
    });
  };
}

export async function removeArtifacts(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await deleteJobArtifacts(ctx.db, ctx.blobs, ctx.config.dataDir, projectOf(req), loadJob.of(req));
  sendNoContent(res);
}
