import type { Request, Response } from 'express';
import { NO_CACHE_HEADERS, type GitService } from '../../git/smart-http.js';

/** A refusal as git shows it to its user: plain text, with an HTTP Basic challenge when `challenge` (git then asks for credentials). */
export function refuseGit(res: Response, status: 401 | 403 | 404 | 415, message: string, challenge = false): void {
  if (challenge) res.setHeader('WWW-Authenticate', 'Basic realm="GitLab"');
  res.status(status).type('text/plain').send(`${message}\n`);
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
