import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../../errors.js';
import { snapshotStream } from '../../git/snapshot.js';
import type { SiteContext } from '../../site-context.js';
import { repositoryPath, wikiRepositoryPath } from '../../storage/layout.js';
import { fromCurrentCopy, type ReadRouting } from '../geo/read-routing.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool } from '../params.js';
import type { Handler } from '../routes.js';

export const snapshotParams = paramsGuard('snapshotParams', { wiki: bool() });

/**
 * GET /projects/:id/snapshot (GitLab 10.7+, project_snapshots.rb): a tar of the project's bare
 * repository, or its wiki's with `wiki=true`. A secondary answers from its copy when it is current.
 */
export const downloadSnapshot =
  (reads: ReadRouting | null): Handler =>
  (ctx, req, res) => {
    const type = snapshotParams.of(req).wiki ? 'wiki' : 'repository';
    return fromCurrentCopy(reads, type, (site, request, response) => sendSnapshot(site, request, response, type))(ctx, req, res);
  };

async function sendSnapshot(ctx: SiteContext, req: Request, res: Response, type: 'repository' | 'wiki'): Promise<void> {
  const project = projectOf(req);
  const tar = await snapshotStream((type === 'wiki' ? wikiRepositoryPath : repositoryPath)(ctx.config.dataDir, project.id));
  if (!tar) throw new AppError('not_found', type === 'wiki' ? 'Wiki Repository' : 'Repository');
  res.status(200);
  res.setHeader('Content-Type', 'application/x-tar');
  res.setHeader('Content-Disposition', `attachment; filename="${project.path}${type === 'wiki' ? '.wiki' : ''}.git.tar"`);
  // A file that vanished mid-read (a repack) or a client that went away: nothing is left to answer.
  await pipeline(tar, res).catch(() => res.destroy());
}
