import type { Request, Response } from 'express';
import { remoteMirror } from '../../entities/remote-mirrors.js';
import { invalid } from '../../errors.js';
import { applicationSettings } from '../../services/administration/application-settings.js';
import {
  createRemoteMirror,
  deleteRemoteMirror,
  getRemoteMirror,
  listRemoteMirrors,
  syncRemoteMirror,
  updateRemoteMirror,
} from '../../services/remote-mirrors/mirrors.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { bool, given, oneOf, required, str, type Reader } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** A boolean that, when sent, may not be blank: GitLab's model answers `{only_protected_branches: ["can't be blank"]}`. */
function presentBool(): Reader<boolean | undefined> {
  const read = bool();
  return (raw, name) => {
    if (raw === null || raw === '') throw invalid({ [name]: ["can't be blank"] });
    return read(raw, name);
  };
}

const SETTINGS = {
  enabled: bool(),
  only_protected_branches: presentBool(),
  keep_divergent_refs: bool(),
  auth_method: oneOf(['password', 'ssh_public_key'] as const),
  mirror_branch_regex: str({ max: 1024 }),
};

export const mirrorCreateParams = paramsGuard('mirrorCreateParams', { url: required(str({ max: 2048 })), ...SETTINGS }, ({ url, ...settings }) => ({ url, settings: given(settings) }));
export const mirrorUpdateParams = paramsGuard('mirrorUpdateParams', SETTINGS, (settings) => given(settings));
export const mirrorIdParam = pathId('mirror_id');

const allowLocal = (ctx: SiteContext) => applicationSettings(ctx.db, ctx.config).allow_local_requests_from_web_hooks_and_services;

export function listMirrors(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listRemoteMirrors(ctx.db, projectOf(req), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(remoteMirror), result.total);
}

export function showMirror(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, remoteMirror(getRemoteMirror(ctx.db, projectOf(req), mirrorIdParam.of(req))));
}

export function addMirror(ctx: SiteContext, req: Request, res: Response): void {
  const { url, settings } = mirrorCreateParams.of(req);
  const mirror = createRemoteMirror(ctx.db, projectOf(req), url, settings, allowLocal(ctx));
  ctx.mirrors.wake();
  sendJson(res, 201, remoteMirror(mirror));
}

export function editMirror(ctx: SiteContext, req: Request, res: Response): void {
  const mirror = updateRemoteMirror(ctx.db, projectOf(req), mirrorIdParam.of(req), mirrorUpdateParams.of(req));
  ctx.mirrors.wake();
  sendJson(res, 200, remoteMirror(mirror));
}

export function removeMirror(ctx: SiteContext, req: Request, res: Response): void {
  deleteRemoteMirror(ctx.db, projectOf(req), mirrorIdParam.of(req));
  sendNoContent(res);
}

export function syncMirror(ctx: SiteContext, req: Request, res: Response): void {
  syncRemoteMirror(ctx.db, projectOf(req), mirrorIdParam.of(req));
  ctx.mirrors.wake();
  sendNoContent(res);
}
