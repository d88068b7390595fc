import { Router, type Request } from 'express';
import type { ProjectRow } from '../db/tables/projects.js';
import { projectHook } from '../entities/hooks.js';
import { forbidden } from '../errors.js';
import { createProjectHook, deleteProjectHook, getProjectHook, listProjectHooks, updateProjectHook, type ProjectHookInput } from '../services/hooks.js';
import { canProject } from '../services/permissions.js';
import { findVisibleProject } from '../services/resolve.js';
import type { SiteContext } from '../site-context.js';
import { requireActor } from './middleware/guards.js';
import { readPage, sendPage } from './pagination.js';
import { bool, idOrPath, pathInt, readParams, required, str, type Input } from './params.js';
import { sendJson, sendNoContent } from './respond.js';

/**
 * Project hooks (SPEC: Projects; GITLAB-NOTES 2.2): list, get, add, edit, delete. Every route
 * needs a signed-in caller (401), a project the caller can see (404) and admin_hooks on it (403).
 */
export function hooksRouter(ctx: SiteContext): Router {
  const router = Router();
  router.get('/projects/:id/hooks', (req, res) => {
    const project = hookableProject(ctx, req);
    const page = readPage(req.input);
    const result = listProjectHooks(ctx.db, project.id, page);
    sendPage(req, res, ctx.externalUrl, page, result.rows.map(projectHook), result.total);
  });
  router.get('/projects/:id/hooks/:hook_id', (req, res) => {
    const project = hookableProject(ctx, req);
    sendJson(res, 200, projectHook(getProjectHook(ctx.db, project.id, pathInt(req.params.hook_id, 'hook_id'))));
  });
  router.post('/projects/:id/hooks', (req, res) => {
    const project = hookableProject(ctx, req);
    sendJson(res, 201, projectHook(createProjectHook(ctx.db, project.id, readHookInput(req.input))));
  });
  router.put('/projects/:id/hooks/:hook_id', (req, res) => {
    const project = hookableProject(ctx, req);
    const hookId = pathInt(req.params.hook_id, 'hook_id');
    sendJson(res, 200, projectHook(updateProjectHook(ctx.db, project.id, hookId, readHookInput(req.input))));
  });
  router.delete('/projects/:id/hooks/:hook_id', (req, res) => {
    const project = hookableProject(ctx, req);
    deleteProjectHook(ctx.db, project.id, pathInt(req.params.hook_id, 'hook_id'));
    sendNoContent(res);
  });
  return router;
}

/** GitLab's order (GITLAB-NOTES 1.4): authenticate, find the project (404 when not visible), then authorize (403). */
function hookableProject(ctx: SiteContext, req: Request): ProjectRow {
  const actor = requireActor(req);
  const project = findVisibleProject(ctx.db, actor, idOrPath(String(req.params.id)));
  if (!canProject(ctx.db, actor, 'admin_hooks', project)) throw forbidden();
  return project;
}

/** Create and edit take the same parameters; `wiki_events` is the SPEC's name for wiki_page_events, and clients send either. */
function readHookInput(input: Input): ProjectHookInput {
  const { wiki_events: wikiEvents, ...params } = readParams(input, {
    url: required(str()),
    token: str(),
    push_events: bool(),
    issues_events: bool(),
    confidential_issues_events: bool(),
    merge_requests_events: bool(),
    tag_push_events: bool(),
    note_events: bool(),
    job_events: bool(),
    pipeline_events: bool(),
    wiki_page_events: bool(),
    wiki_events: bool(),
    enable_ssl_verification: bool(),
  });
  return { ...params, wiki_page_events: params.wiki_page_events ?? wikiEvents };
}
