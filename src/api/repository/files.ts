import type { Request, Response } from 'express';
import { badRequest } from '../../errors.js';
import { isValidFilePath, writeCommit } from '../../services/repository/commit-writer.js';
import { blameRangeEntity } from '../../entities/repository.js';
import { blameRepoFile, fileEntity, fileHeaders, readFile } from '../../services/repository/files.js';
import { repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { oneOf, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { COMMIT_PARAMS, commitRequestOf } from './commit-params.js';

export const rawFileParams = paramsGuard('rawFileParams', { ref: str() });
export const fileRefParams = paramsGuard('fileRefParams', { ref: required(str()) });
export const fileDeleteParams = paramsGuard('fileDeleteParams', COMMIT_PARAMS, commitRequestOf);
/** Create and update: the commit, the content as given (text, the default, or base64 `encoding`; absent is 400 `content is missing`, empty is fine). */
export const fileWriteParams = paramsGuard('fileWriteParams', { ...COMMIT_PARAMS, last_commit_id: str(), content: str(), encoding: oneOf(['text', 'base64'] as const) }, (params) => {
  if (params.content === undefined) throw badRequest('content is missing');
  const content = params.encoding === 'base64' ? Buffer.from(params.content, 'base64') : Buffer.from(params.content, 'utf8');
  return { request: commitRequestOf(params), lastCommitId: params.last_commit_id || undefined, content };
});

/** GET files/:file_path/raw: the bytes, with the blob and commit ids GitLab sends as headers. */
export async function showRawFile(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { ref } = rawFileParams.of(req);
  const file = await readFile(repositoryOf(ctx, project), ref || project.default_branch, filePathOf(req));
  const binary = file.content.subarray(0, 8000).includes(0);
  res.statusCode = 200;
  res.setHeader('Content-Type', binary ? 'application/octet-stream' : 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', file.content.length);
  res.setHeaders(new Map(Object.entries(fileHeaders(file))));
  res.end(file.content);
}

/** GET (and HEAD, which python-gitlab's files.head sends) files/:file_path: the file base64, its metadata also as X-Gitlab-* headers. */
export async function showFile(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { ref } = fileRefParams.of(req);
  const file = await readFile(repositoryOf(ctx, projectOf(req)), ref, filePathOf(req));
  res.setHeaders(new Map(Object.entries(fileHeaders(file))));
  sendJson(res, 200, fileEntity(file));
}

/** GET files/:file_path/blame: runs of lines with the commit that last changed them, and the file's X-Gitlab-* headers. */
export async function showFileBlame(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { ref } = fileRefParams.of(req);
  const { file, ranges } = await blameRepoFile(repositoryOf(ctx, projectOf(req)), ref, filePathOf(req));
  res.setHeaders(new Map(Object.entries(fileHeaders(file))));
  sendJson(res, 200, ranges.map(blameRangeEntity));
}

export const addFile = (ctx: SiteContext, req: Request, res: Response) => writeFile(ctx, req, res, 'create', 201);
export const editFile = (ctx: SiteContext, req: Request, res: Response) => writeFile(ctx, req, res, 'update', 200);

export async function removeFile(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const filePath = filePathOf(req);
  const request = fileDeleteParams.of(req);
  await writeCommit(ctx, projectOf(req), requireActor(req), { ...request, actions: [{ action: 'delete', filePath }] });
  sendNoContent(res);
}

/** Create and update take the same parameters and commit one action. */
async function writeFile(ctx: SiteContext, req: Request, res: Response, action: 'create' | 'update', status: number): Promise<void> {
  const filePath = filePathOf(req);
  const { request, lastCommitId, content } = fileWriteParams.of(req);
  await writeCommit(ctx, projectOf(req), requireActor(req), { ...request, actions: [{ action, filePath, content, lastCommitId }] });
  sendJson(res, status, { file_path: filePath, branch: request.branch });
}

function filePathOf(req: Request): string {
  const filePath = String(req.params.file_path);
  if (!isValidFilePath(filePath)) throw badRequest('file_path is invalid');
  return filePath;
}
