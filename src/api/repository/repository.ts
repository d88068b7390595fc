import { Router, type Request } from 'express';
import type { ProjectRow } from '../../db/tables/projects.js';
import { branchEntity, commitDetail, commitEntity, diffEntity } from '../../entities/repository.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { listCommits, readCommit } from '../../git/commit-log.js';
import { diffFiles, diffStats } from '../../git/diff.js';
import { repositoryOf } from '../../git/in-repository.js';
import { isEmptyRepository, resolveCommit } from '../../git/refs.js';
import type { Actor } from '../../services/users/authentication.js';
import { ACCESS, can, projectAccess, visibleWithoutMembership } from '../../services/permissions.js';
import { createBranch, deleteBranch, getBranch, listBranches } from '../../services/repository/branches.js';
import { isValidFilePath, writeCommit, type FileAction } from '../../services/repository/commit-writer.js';
import { compareRefs } from '../../services/repository/compare.js';
import { fileEntity, readFile } from '../../services/repository/files.js';
import { findVisibleProject } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { bool, datetime, idOrPath, oneOf, readParams, required, str, type Input } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/**
 * The repository API (GITLAB-NOTES 5: Branches, Repository files, Commits; compare): reads need
 * the code (public and internal projects to whoever sees them, private ones to reporters and up);
 * writes need push (developer, not on an archived project) and commit through the commit writer.
 */
export function repositoryRouter(ctx: SiteContext): Router {
  const router = Router();
  const base = '/projects/:id/repository';

  const readable = (req: Request): ProjectRow => {
    const project = findVisibleProject(ctx.db, req.actor, idOrPath(String(req.params.id)));
    if (!visibleWithoutMembership(req.actor, project.visibility_level) && projectAccess(ctx.db, req.actor, project) < ACCESS.reporter) throw forbidden();
    return project;
  };
  const writable = (req: Request): { actor: Actor; project: ProjectRow } => {
    const actor = requireActor(req);
    const project = findVisibleProject(ctx.db, actor, idOrPath(String(req.params.id)));
    if (!can(ctx.db, actor, 'push_code', project)) throw forbidden();
    return { actor, project };
  };
  const commitSha = async (project: ProjectRow, ref: string | undefined) => {
    const sha = await resolveCommit(repositoryOf(ctx, project), ref);
    if (!sha) throw notFound('Commit');
    return sha;
  };
  const detail = async (project: ProjectRow, sha: string) => {
    const repository = repositoryOf(ctx, project);
    const commit = await readCommit(repository, sha);
    return commitDetail(commit, await diffStats(repository, commit.parentIds[0] ?? null, sha), project.id);
  };

  // Branches
  router.get(`${base}/branches`, async (req, res) => {
    const project = readable(req);
    const { search } = readParams(req.input, { search: str() });
    const page = readPage(req.input);
    const { rows, total } = await listBranches(ctx, project, search || undefined, page.offset, page.perPage);
    sendPage(req, res, ctx.externalUrl, page, rows.map(branchEntity), total);
  });
  router.get(`${base}/branches/:branch`, async (req, res) => {
    const project = readable(req);
    sendJson(res, 200, branchEntity(await getBranch(ctx, project, String(req.params.branch))));
  });
  router.post(`${base}/branches`, async (req, res) => {
    const { actor, project } = writable(req);
    const { branch, ref } = readParams(req.input, { branch: required(str()), ref: required(str()) });
    sendJson(res, 201, branchEntity(await createBranch(ctx, project, actor, branch, ref)));
  });
  router.delete(`${base}/branches/:branch`, async (req, res) => {
    const { actor, project } = writable(req);
    await deleteBranch(ctx, project, actor, String(req.params.branch));
    sendNoContent(res);
  });

  // Files
  const filePathOf = (req: Request) => {
    const filePath = String(req.params.file_path);
    if (!isValidFilePath(filePath)) throw badRequest('file_path is invalid');
    return filePath;
  };
  router.get(`${base}/files/:file_path/raw`, async (req, res) => {
    const project = readable(req);
    const { ref } = readParams(req.input, { ref: str() });
    const file = await readFile(repositoryOf(ctx, project), ref || project.default_branch, filePathOf(req));
    const binary = file.content.subarray(0, 8000).includes(0);
    res.statusCode = 200;
    res.setHeader('Content-Type', binary ? 'application/octet-stream' : 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', file.content.length);
    res.setHeader('X-Gitlab-Blob-Id', file.blobId);
    res.setHeader('X-Gitlab-Commit-Id', file.commitId);
    res.setHeader('X-Gitlab-Last-Commit-Id', file.lastCommitId);
    res.end(file.content);
  });
  router.get(`${base}/files/:file_path`, async (req, res) => {
    const project = readable(req);
    const { ref } = readParams(req.input, { ref: required(str()) });
    sendJson(res, 200, fileEntity(await readFile(repositoryOf(ctx, project), ref, filePathOf(req))));
  });
  const writeFile = (action: 'create' | 'update', status: number) => async (req: Request, res: import('express').Response) => {
    const { actor, project } = writable(req);
    const filePath = filePathOf(req);
    const params = readParams(req.input, {
      branch: required(str()),
      commit_message: required(str()),
      start_branch: str(),
      author_email: str(),
      author_name: str(),
      last_commit_id: str(),
    });
    const content = contentOf(req.input, 'content');
    await writeCommit(ctx, project, actor, {
      branch: params.branch,
      startBranch: params.start_branch || undefined,
      message: params.commit_message,
      authorEmail: params.author_email,
      authorName: params.author_name,
      actions: [{ action, filePath, content, lastCommitId: params.last_commit_id || undefined }],
    });
    sendJson(res, status, { file_path: filePath, branch: params.branch });
  };
  router.post(`${base}/files/:file_path`, writeFile('create', 201));
  router.put(`${base}/files/:file_path`, writeFile('update', 200));
  router.delete(`${base}/files/:file_path`, async (req, res) => {
    const { actor, project } = writable(req);
    const filePath = filePathOf(req);
    const params = readParams(req.input, { branch: required(str()), commit_message: required(str()), start_branch: str(), author_email: str(), author_name: str() });
    await writeCommit(ctx, project, actor, {
      branch: params.branch,
      startBranch: params.start_branch || undefined,
      message: params.commit_message,
      authorEmail: params.author_email,
      authorName: params.author_name,
      actions: [{ action: 'delete', filePath }],
    });
    sendNoContent(res);
  });

  // Commits
  router.get(`${base}/commits`, async (req, res) => {
    const project = readable(req);
    const params = readParams(req.input, { ref_name: str(), since: datetime(), until: datetime(), path: str() });
    const page = readPage(req.input);
    const repository = repositoryOf(ctx, project);
    const sha = await resolveCommit(repository, params.ref_name || project.default_branch);
    if (!sha) {
      // A new project has no commits yet: an empty list, as GitLab answers for an empty repository.
      if (!params.ref_name && (await isEmptyRepository(repository))) return sendPage(req, res, ctx.externalUrl, page, [], 0);
      throw notFound('Commit');
    }
    const { commits, total } = await listCommits(repository, sha, { since: params.since, until: params.until, path: params.path || undefined }, page.offset, page.perPage);
    sendPage(req, res, ctx.externalUrl, page, commits.map(commitEntity), total);
  });
  router.get(`${base}/commits/:sha`, async (req, res) => {
    const project = readable(req);
    sendJson(res, 200, await detail(project, await commitSha(project, String(req.params.sha))));
  });
  router.get(`${base}/commits/:sha/diff`, async (req, res) => {
    const project = readable(req);
    const repository = repositoryOf(ctx, project);
    const sha = await commitSha(project, String(req.params.sha));
    const commit = await readCommit(repository, sha);
    sendJson(res, 200, (await diffFiles(repository, commit.parentIds[0] ?? null, sha)).map(diffEntity));
  });
  router.post(`${base}/commits`, async (req, res) => {
    const { actor, project } = writable(req);
    const params = readParams(req.input, {
      branch: required(str()),
      commit_message: required(str()),
      start_branch: str(),
      author_email: str(),
      author_name: str(),
    });
    const sha = await writeCommit(ctx, project, actor, {
      branch: params.branch,
      startBranch: params.start_branch || undefined,
      message: params.commit_message,
      authorEmail: params.author_email,
      authorName: params.author_name,
      actions: readActions(req.input.actions),
    });
    sendJson(res, 201, await detail(project, sha));
  });

  // Compare
  router.get(`${base}/compare`, async (req, res) => {
    const project = readable(req);
    const { from, to, straight } = readParams(req.input, { from: required(str()), to: required(str()), straight: bool() });
    sendJson(res, 200, await compareRefs(repositoryOf(ctx, project), from, to, straight ?? false));
  });

  return router;
}

/** File content as given: text (the default) or base64 (`encoding`); absent is 400 `<name> is missing`, empty is fine. */
function contentOf(input: Input, name: string, encodingName = 'encoding'): Buffer {
  const { [name]: content, [encodingName]: encoding } = readParams(input, { [name]: str(), [encodingName]: oneOf(['text', 'base64'] as const) }) as Record<string, string | undefined>;
  if (content === undefined) throw badRequest(`${name} is missing`);
  return encoding === 'base64' ? Buffer.from(content, 'base64') : Buffer.from(content, 'utf8');
}

const ACTIONS = ['create', 'update', 'delete', 'move', 'chmod'] as const;

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
