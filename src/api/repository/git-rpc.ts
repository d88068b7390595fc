import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { GitError } from '../../git/cli.js';
import { advertiseRefs, gitProtocolOf, NO_CACHE_HEADERS, type GitService } from '../../git/smart-http.js';
import type { SiteContext } from '../../site-context.js';
import { acquireSlot } from '../admission/hold.js';

/** A refusal as git shows it to its user: plain text, with an HTTP Basic challenge when `challenge` (git then asks for credentials). */
export function refuseGit(res: Response, status: 400 | 401 | 403 | 404 | 415, message: string, challenge = false): void {
  if (challenge) res.setHeader('WWW-Authenticate', 'Basic realm="GitLab"');
  res.status(status).type('text/plain').send(`${message}\n`);
}

/**
 * Waits for a slot of the service's own limiter (Gitaly's per-RPC concurrency limits), held until
 * the response ends: the ref advertisement and the RPC each take one in turn, so a burst of clones
 * queues apart from pushes and from the API, and an API overload refuses no push. False when it
 * was refused (answered 429 or 503 as plain text, which git shows) or the client left.
 */
export function admitGitRpc(ctx: SiteContext, req: Request, res: Response, service: GitService): Promise<boolean> {
  return acquireSlot(ctx.log, service === 'git-receive-pack' ? ctx.limits.receivePack : ctx.limits.uploadPack, req, res, 'git');
}

/**
 * Opens the response of a smart HTTP RPC (upload-pack or receive-pack): refuses (415) a body
 * that is not git's request type or comes in an encoding git does not send, else sets the result
 * headers. The signal aborts when the client goes away mid-transfer, so git never runs on for
 * nobody. Returns null when refused (the response is then complete).
 */
export function startGitRpc(req: Request, res: Response, service: GitService): { gzip: boolean; signal: AbortSignal } | null {
  if (req.headers['content-type'] !== `application/x-${service}-request`) {
    refuseGit(res, 415, `Expected Content-Type application/x-${service}-request.`);
    return null;
  }
  const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding && encoding !== 'gzip' && encoding !== 'identity') {
    refuseGit(res, 415, `Unsupported Content-Encoding ${encoding}.`);
    return null;
  }
  const abort = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  res.status(200).set(NO_CACHE_HEADERS).type(`application/x-${service}-result`);
  return { gzip: encoding === 'gzip', signal: abort.signal };
}

/** A request body git or gunzip could not read: the client's fault, not the server's. */
function malformedRpcBody(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR') return true;
  return error instanceof GitError && /protocol error|bad line length|expected flush after|expected (pkt-line|packfile)/i.test(error.stderr);
}

/**
 * Ends an RPC that failed. A client that went away, or sent a body git cannot read, is logged at
 * info without a stack (its input, not our fault), a malformed body answered 400 while nothing was
 * sent yet; anything else is a warning with the error. The connection closes when the answer had begun.
 */
export function endFailedGitRpc(log: Logger, res: Response, signal: AbortSignal, error: unknown, fields: Record<string, unknown>): void {
  if (signal.aborted) {
    log.info(fields, 'git rpc ended: the client went away');
  } else if (malformedRpcBody(error)) {
    log.info({ ...fields, reason: error instanceof Error ? error.message : String(error) }, 'git rpc refused: malformed request body');
    if (!res.headersSent) return refuseGit(res, 400, 'The request body is not a git request git can read.');
  } else {
    log.warn({ ...fields, err: error }, 'git rpc failed');
  }
  res.destroy();
}

/** Answers a smart HTTP ref advertisement (info/refs) of a repository the caller passed the gate for; a failure mid-answer closes the connection. */
export async function sendRefAdvertisement(log: Logger, req: Request, res: Response, repository: string, service: GitService, fields: Record<string, unknown>): Promise<void> {
  res.status(200).set(NO_CACHE_HEADERS).type(`application/x-${service}-advertisement`);
  try {
    await advertiseRefs(repository, service, res, gitProtocolOf(req.headers['git-protocol']));
    res.end();
  } catch (error) {
    log.warn({ ...fields, err: error }, 'git ref advertisement failed');
    res.destroy();
  }
}
