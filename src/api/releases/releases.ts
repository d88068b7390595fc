import type { Request, Response } from 'express';
import { releaseEntity, releaseLinkEntity } from '../../entities/releases.js';
import { createReleaseLink, deleteReleaseLink, getReleaseLink, listReleaseLinks, updateReleaseLink } from '../../services/releases/links.js';
import { createRelease, deleteRelease, getRelease, latestRelease, listReleases, updateRelease } from '../../services/releases/releases.js';
import { releaseProjectOf } from '../../services/releases/views.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';
import { linkCreateParams, linkUpdateParams, releaseCreateParams, releaseListParams, releaseUpdateParams } from './params.js';

export const linkIdParam = pathId('link_id');

const tagOf = (req: Request) => String(req.params.tag_name);

export async function listProjectReleases(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const page = paged.of(req);
  const { rows, total } = await listReleases(ctx, projectOf(req), req.actor ?? null, releaseListParams.of(req), page);
  sendPage(req, res, ctx.externalUrl, page, rows.map((view) => releaseEntity(view, ctx)), total);
}

export async function showRelease(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, releaseEntity(await getRelease(ctx, projectOf(req), req.actor ?? null, tagOf(req)), ctx));
}

/** GitLab's permalink/latest: a redirect to the latest release, keeping the query but `order_by`. */
export function redirectToLatestRelease(ctx: SiteContext, req: Request, res: Response): void {
  const project = projectOf(req);
  const release = latestRelease(ctx, project);
  const query = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
  query.delete('order_by');
  const search = query.size ? `?${query}` : '';
  res.redirect(302, `${ctx.externalUrl}/api/v4/projects/${project.id}/releases/${encodeURIComponent(release.tag)}${search}`);
}

export async function addRelease(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 201, releaseEntity(await createRelease(ctx, projectOf(req), requireActor(req), releaseCreateParams.of(req)), ctx));
}

export async function editRelease(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, releaseEntity(await updateRelease(ctx, projectOf(req), requireActor(req), tagOf(req), releaseUpdateParams.of(req)), ctx));
}

/** GitLab answers the deleted release (200). */
export async function removeRelease(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, releaseEntity(await deleteRelease(ctx, projectOf(req), requireActor(req), tagOf(req)), ctx));
}

export function listLinks(ctx: SiteContext, req: Request, res: Response): void {
  const project = projectOf(req);
  const page = paged.of(req);
  const { release, rows, total } = listReleaseLinks(ctx, project, tagOf(req), page);
  const where = releaseProjectOf(ctx, project);
  sendPage(req, res, ctx.externalUrl, page, rows.map((link) => releaseLinkEntity(link, where, release.tag)), total);
}

/** The handlers of one link: each answers the link (GitLab presents a deleted one too). */
function linkHandler(status: 200 | 201, act: (ctx: SiteContext, req: Request) => ReturnType<typeof getReleaseLink>) {
  return (ctx: SiteContext, req: Request, res: Response): void => {
    const { release, link } = act(ctx, req);
    sendJson(res, status, releaseLinkEntity(link, releaseProjectOf(ctx, projectOf(req)), release.tag));
  };
}

export const showLink = linkHandler(200, (ctx, req) => getReleaseLink(ctx, projectOf(req), tagOf(req), linkIdParam.of(req)));
export const addLink = linkHandler(201, (ctx, req) => createReleaseLink(ctx, projectOf(req), requireActor(req), tagOf(req), linkCreateParams.of(req)));
export const editLink = linkHandler(200, (ctx, req) => updateReleaseLink(ctx, projectOf(req), requireActor(req), tagOf(req), linkIdParam.of(req), linkUpdateParams.of(req)));
export const removeLink = linkHandler(200, (ctx, req) => deleteReleaseLink(ctx, projectOf(req), requireActor(req), tagOf(req), linkIdParam.of(req)));
