import type { Request, Response } from 'express';
import { findVisibleProject } from '../../services/find-visible.js';
import { projectFullPath } from '../../services/projects/fork.js';
import { renderMarkdown } from '../../services/markdown/render.js';
import type { SiteContext } from '../../site-context.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, required, str } from '../params.js';
import { sendJson } from '../respond.js';

/** GitLab caps what it renders at 1 MB of text (Banzai's limit on note bodies); more is a 400. */
export const markdownParams = paramsGuard('markdownParams', { text: required(str({ max: 1_000_000 })), gfm: bool(), project: str({ max: 1024 }) });

/** POST /markdown: `{html}`, 201 as GitLab answers a POST; the project (a full path) must be one the caller reads (404 otherwise). */
export function renderText(ctx: SiteContext, req: Request, res: Response): void {
  const { text, gfm, project } = markdownParams.of(req);
  const found = project === undefined ? null : findVisibleProject(ctx.db, req.actor, { path: project });
  const context = { db: ctx.db, actor: req.actor, project: found, projectPath: found && projectFullPath(ctx.db, found), externalUrl: ctx.externalUrl };
  sendJson(res, 201, { html: renderMarkdown(text, { gfm: gfm ?? false, context }) });
}
