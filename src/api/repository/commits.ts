import type { Request, Response } from 'express';
import { basicRefEntity, commitDetail, commitEntity, commitSignatureEntity, diffEntity } from '../../entities/repository.js';
import { badRequest } from '../../errors.js';
import { isValidFilePath, writeCommit, type FileAction } from '../../services/repository/commit-writer.js';
import { verifyCommitSignature } from '../../services/repository/commit-signatures.js';
import { ALL_REFS, commitDiff, commitHistory, commitRefs, commitWithStats } from '../../services/repository/project-commits.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { bool, datetime, oneOf, required, str, type Input } from '../params.js';
import { sendJson } from '../respond.js';
import { COMMIT_PARAMS, commitRequestOf } from './commit-params.js';

export const commitListParams = paramsGuard('commitListParams', { ref_name: str(), since: datetime(), until: datetime(), path: str(), all: bool(), ...PAGE_PARAMS });
export const commitRefsParams = paramsGuard('commitRefsParams', { type: oneOf(['branch', 'tag', 'all'] as const), ...PAGE_PARAMS });

export async function listProjectCommits(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = commitListParams.of(req);
  const page = pageOf(params);
  const filter = { since: params.since, until: params.until, path: params.path || undefined };
  const { commits, total } = await commitHistory(ctx, projectOf(req), params.all ? ALL_REFS : params.ref_name, filter, page);
  sendPage(req, res, ctx.externalUrl, page, commits.map(commitEntity), total);
}

export async function showCommit(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { commit, stats } = await commitWithStats(ctx, project, String(req.params.sha));
  sendJson(res, 200, commitDetail(commit, stats, project.id));
}

export async function showCommitDiff(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, (await commitDiff(ctx, projectOf(req), String(req.params.sha))).map(diffEntity));
}

/** GET commits/:sha/refs: the branches and tags holding the commit (`type` branch, tag or all), paged as GitLab pages its array. */
export async function showCommitRefs(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { type, ...rest } = commitRefsParams.of(req);
  const page = pageOf(rest);
  const refs = await commitRefs(ctx, projectOf(req), String(req.params.sha), type ?? 'all');
  sendPage(req, res, ctx.externalUrl, page, refs.slice(page.offset, page.offset + page.perPage).map(basicRefEntity), refs.length);
}

/** GET commits/:sha/signature: the GPG signature verified against the registered keys; 404 `Signature` for an unsigned commit. */
export async function showCommitSignature(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, commitSignatureEntity(await verifyCommitSignature(ctx, projectOf(req), String(req.params.sha))));
}

/** POST commits: several file actions in one commit, answered with the new commit's detail. */
export async function addCommit(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const sha = await writeCommit(ctx, project, requireActor(req), commitParams.of(req));
  const { commit, stats } = await commitWithStats(ctx, project, sha);
  sendJson(res, 201, commitDetail(commit, stats, project.id));
}

const ACTIONS = ['create', 'update', 'delete', 'move', 'chmod'] as const;

export const commitParams = paramsGuard('commitParams', { ...COMMIT_PARAMS, actions: (raw: unknown) => readActions(raw) }, (params) => ({ ...commitRequestOf(params), actions: params.actions }));

/** The `actions` of a multi-file commit; each problem is a 400 naming the action (`actions[1] file_path is missing`). */
function readActions(raw: unknown): FileAction[] {
  if (raw === undefined || raw === null || raw === '') throw badRequest('actions is missing');
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' ? Object.values(raw as object) : null;
  if (!list) throw badRequest('actions is invalid');
  if (list.length === 0) throw badRequest('actions is empty');
  return list.map((entry, i): FileAction => {
    const at = `actions[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest(`${at} is invalid`);
    const item = entry as Input;
    const named = <T>(reader: (raw: unknown, name: string) => T, key: string) => reader(item[key], `${at} ${key}`);
    const action = named(required(oneOf(ACTIONS)), 'action');
    const filePath = named(required(str()), 'file_path');
    if (!isValidFilePath(filePath)) throw badRequest(`${at} file_path is invalid`);
    const encoding = named(oneOf(['text', 'base64'] as const), 'encoding');
    const content = named(str(), 'content');
    const bytes = content === undefined ? undefined : encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
    switch (action) {
      case 'create':
      case 'update':
        if (!bytes) throw badRequest(`${at} content is missing`);
        return { action, filePath, content: bytes, lastCommitId: named(str(), 'last_commit_id') || undefined };
      case 'delete':
        return { action, filePath };
      case 'move': {
        const previousPath = named(required(str()), 'previous_path');
        if (!isValidFilePath(previousPath)) throw badRequest(`${at} previous_path is invalid`);
        return { action, filePath, previousPath, content: bytes };
      }
      case 'chmod':
        return { action, filePath, executable: named(required(bool()), 'execute_filemode') };
    }
  });
}
