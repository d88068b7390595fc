import type { Request, Response } from 'express';
import { blobEntity, commitEntity, contributorEntity, treeEntryEntity } from '../../entities/repository.js';
import { prepareArchive } from '../../services/repository/archives.js';
import { findMergeBase, listContributors, listRepositoryTree, openProjectBlob, readProjectBlob } from '../../services/repository/browse.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { bool, list, oneOf, required, str } from '../params.js';
import { sendJson } from '../respond.js';
import { acquireSlot } from '../admission/hold.js';
import { blobContentType, sendGitOutput } from './git-download.js';

export const treeParams = paramsGuard('treeParams', { ref: str(), path: str(), recursive: bool(), ...PAGE_PARAMS });
export const archiveParams = paramsGuard('archiveParams', { sha: str(), format: str(), path: str() });
export const contributorParams = paramsGuard('contributorParams', { ref: str(), order_by: oneOf(['email', 'name', 'commits'] as const), sort: oneOf(['asc', 'desc'] as const), ...PAGE_PARAMS });
export const mergeBaseParams = paramsGuard('mergeBaseParams', { refs: required(list(str())) });

/** GET repository/tree: one page of a tree's entries. */
export async function showTree(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { ref, path, recursive, ...rest } = treeParams.of(req);
  const page = pageOf(rest);
  const { rows, total } = await listRepositoryTree(ctx, projectOf(req), { ref, path, recursive: recursive ?? false }, page);
  sendPage(req, res, ctx.externalUrl, page, rows.map(treeEntryEntity), total);
}

/** GET repository/blobs/:sha: the blob base64 with its size. */
export async function showBlob(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, blobEntity(await readProjectBlob(ctx, projectOf(req), String(req.params.sha))));
}

/** GET repository/blobs/:sha/raw: the bytes, streamed from git. */
export async function showRawBlob(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const blob = await openProjectBlob(ctx, projectOf(req), String(req.params.sha));
  res.statusCode = 200;
  res.setHeader('Content-Length', blob.size);
  // GitLab's no_cache_headers.
  res.setHeaders(new Map([['Cache-Control', 'no-cache, no-store'], ['Pragma', 'no-cache'], ['Expires', 'Fri, 01 Jan 1990 00:00:00 GMT']]));
  if (req.method === 'HEAD') {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end();
    return;
  }
  await sendGitOutput(res, blob.start(), blobContentType);
}

/** GET repository/archive[.format]: `git archive` streamed, named as GitLab names it. */
export async function downloadArchive(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = archiveParams.of(req);
  const format = req.params.format === undefined ? params.format : String(req.params.format);
  const archive = await prepareArchive(ctx, projectOf(req), { sha: params.sha, format: format || undefined, path: params.path || undefined });
  // git archive runs under its own limiter, not the API's: it streams for as long as the client reads.
  if (req.method !== 'HEAD' && !(await acquireSlot(ctx.log, ctx.limits.archive, req, res, 'json'))) return;
  res.statusCode = 200;
  res.setHeader('Content-Type', archive.format === 'zip' ? 'application/zip' : 'application/octet-stream');
  // Workhorse's headers; the name as its UTF-8 bytes, as Go writes a string.
  res.setHeader('Content-Disposition', `attachment; filename="${Buffer.from(archive.fileName.replace(/"/g, '\\"'), 'utf8').toString('latin1')}"`);
  res.setHeader('Content-Transfer-Encoding', 'binary');
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  await sendGitOutput(res, archive.start());
}

/** GET repository/contributors: paged after ordering, as GitLab pages its array. */
export async function showContributors(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = contributorParams.of(req);
  const page = pageOf(params);
  const contributors = await listContributors(ctx, projectOf(req), { ref: params.ref || undefined, orderBy: params.order_by ?? 'commits', sort: params.sort ?? 'asc' });
  sendPage(req, res, ctx.externalUrl, page, contributors.slice(page.offset, page.offset + page.perPage).map(contributorEntity), contributors.length);
}

/** GET repository/merge_base?refs[]=a&refs[]=b: the common ancestor as a Commit. */
export async function showMergeBase(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { refs } = mergeBaseParams.of(req);
  sendJson(res, 200, commitEntity(await findMergeBase(ctx, projectOf(req), refs)));
}
