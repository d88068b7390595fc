import { Router, type Request, type Response } from 'express';
import { stat } from 'node:fs/promises';
import { findProjectByFullPath, type ProjectRow } from '../db/tables/projects.js';
import { repositoryPath } from '../git/repositories.js';
import { advertiseRefs, isGitService, NO_CACHE_HEADERS, serviceRpc, siteHooksDir, type GitService } from '../git/smart-http.js';
import { afterPush } from '../services/after-push.js';
import { authenticateCredential, touchActivity, type Actor } from '../services/authentication.js';
import { ACCESS, canProject, canReadProject, projectAccess, visibleWithoutMembership } from '../services/permissions.js';
import type { SiteContext } from '../site-context.js';

/** `/<full path>[.git]/info/refs` and `/<full path>[.git]/git-(upload|receive)-pack`; the `.git` suffix is optional. */
const INFO_REFS = /^\/(.+?)(?:\.git)?\/info\/refs$/;
const RPC = /^\/(.+?)(?:\.git)?\/(git-upload-pack|git-receive-pack)$/;

/** A refusal git shows its user: plain text (git prints text/plain bodies), with the Basic challenge on a 401. */
function refuse(res: Response, status: 401 | 403 | 404 | 415, message: string): void {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="GitLab"');
  res.status(status).type('text/plain').send(`${message}\n`);
}

const challenge = (res: Response) => refuse(res, 401, 'HTTP Basic: Access denied');

type Basic = { actor: Actor | null } | 'invalid';

/**
 * HTTP Basic with any username (`oauth2` among them) and a token as the password: personal,
 * impersonation or OAuth. A token must carry a repository scope (or `api`) for the service.
 */
function basicActor(ctx: SiteContext, req: Request, service: GitService): Basic {
  const header = req.headers.authorization;
  if (!header || !/^basic\s+/i.test(header)) return { actor: null };
  const decoded = Buffer.from(header.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const secret = colon < 0 ? '' : decoded.slice(colon + 1);
  if (!secret) return 'invalid';
  const actor = authenticateCredential(ctx.db, { kind: 'bearer', secret });
  if (!actor) return 'invalid';
  const scopes = service === 'git-receive-pack' ? ['api', 'write_repository'] : ['api', 'read_repository', 'write_repository'];
  if (!actor.scopes.some((scope) => scopes.includes(scope))) return 'invalid';
  if (ctx.config.role === 'primary') touchActivity(ctx.db, actor.user);
  return { actor };
}

/** Downloading code needs what forking does: a project visible without membership, or reporter access (guests of a private project may not). */
const canDownload = (ctx: SiteContext, actor: Actor | null, project: ProjectRow) =>
  visibleWithoutMembership(actor, project.visibility_level) || projectAccess(ctx.db, actor, project) >= ACCESS.reporter;

interface Access {
  project: ProjectRow;
  actor: Actor | null;
  repository: string;
}

/**
 * Who may use `service` on the project at `fullPath`, GitLab's way: anonymous callers are
 * challenged (401, so git asks for credentials) unless the project is public and they only pull;
 * signed-in callers get 404 for a project they cannot see and 403 for one they may not pull
 * from or push to. Responds itself and returns null when refused.
 */
async function gate(ctx: SiteContext, req: Request, res: Response, fullPath: string, service: GitService): Promise<Access | null> {
  const basic = basicActor(ctx, req, service);
  if (basic === 'invalid') {
    challenge(res);
    return null;
  }
  const { actor } = basic;
  const project = findProjectByFullPath(ctx.db, fullPath);
  if (!project || !canReadProject(ctx.db, actor, project)) {
    if (actor) refuse(res, 404, 'The project you were looking for could not be found.');
    else challenge(res);
    return null;
  }
  if (service === 'git-receive-pack') {
    if (!actor) {
      challenge(res);
      return null;
    }
    if (ctx.config.role !== 'primary') {
      refuse(res, 403, "You can't push code to a read-only GitLab instance.");
      return null;
    }
    if (project.archived) {
      refuse(res, 403, 'You are not allowed to push code to an archived project.');
      return null;
    }
    if (!canProject(ctx.db, actor, 'push', project)) {
      refuse(res, 403, 'You are not allowed to push code to this project.');
      return null;
    }
  } else if (!canDownload(ctx, actor, project)) {
    if (actor) refuse(res, 403, 'You are not allowed to download code from this project.');
    else challenge(res);
    return null;
  }
  const repository = repositoryPath(ctx.config.dataDir, project.id);
  if (!(await stat(repository).catch(() => null))?.isDirectory()) {
    refuse(res, 404, 'The project you were looking for could not be found.');
    return null;
  }
  return { project, actor, repository };
}

/**
 * Git smart HTTP (GITLAB-NOTES 5): the ref advertisement and the two stateless RPCs, git's own
 * upload-pack and receive-pack streamed both ways. Outside /api/v4 and before any body parser:
 * the request body is the pack.
 */
export function gitHttpRouter(ctx: SiteContext): Router {
  const router = Router();

  router.get(INFO_REFS, async (req, res) => {
    res.locals.route = '/:namespace/:project.git/info/refs';
    const params = req.params as unknown as Record<string, string>;
    const service = req.query.service;
    if (!isGitService(service)) {
      // The dumb protocol is not served.
      refuse(res, 403, 'Only the smart HTTP protocol is supported.');
      return;
    }
    const access = await gate(ctx, req, res, params[0]!, service);
    if (!access) return;
    res.status(200).set(NO_CACHE_HEADERS).type(`application/x-${service}-advertisement`);
    try {
      await advertiseRefs(access.repository, service, res);
      res.end();
    } catch (error) {
      ctx.log.warn({ err: error, project: access.project.id }, 'git ref advertisement failed');
      res.destroy();
    }
  });

  router.post(RPC, async (req, res) => {
    const params = req.params as unknown as Record<string, string>;
    const service = params[1] as GitService;
    res.locals.route = `/:namespace/:project.git/${service}`;
    const access = await gate(ctx, req, res, params[0]!, service);
    if (!access) return;
    if (req.headers['content-type'] !== `application/x-${service}-request`) {
      refuse(res, 415, `Expected Content-Type application/x-${service}-request.`);
      return;
    }
    const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
    if (encoding && encoding !== 'gzip' && encoding !== 'identity') {
      refuse(res, 415, `Unsupported Content-Encoding ${encoding}.`);
      return;
    }
    const receive = service === 'git-receive-pack';
    const abort = new AbortController();
    // A client that goes away mid-transfer must not leave git running.
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    res.status(200).set(NO_CACHE_HEADERS).type(`application/x-${service}-result`);
    let updates;
    try {
      updates = await serviceRpc({
        repository: access.repository,
        service,
        body: req,
        gzip: encoding === 'gzip',
        output: res,
        hooksDir: receive ? await siteHooksDir(ctx.config.dataDir) : undefined,
        protectedRef: receive ? `refs/heads/${access.project.default_branch}` : undefined,
        signal: abort.signal,
      });
    } catch (error) {
      ctx.log.warn({ err: error, project: access.project.id, service }, 'git rpc failed');
      res.destroy();
      return;
    }
    // The response ends after the push's follow-up, so a client (or test) that saw the push
    // finish sees its hooks queued too; git waits on post-receive work the same way.
    if (receive && access.actor && updates.length > 0) {
      await afterPush(ctx, access.project, access.actor, updates).catch((error: unknown) => {
        ctx.log.error({ err: error, project: access.project.id }, 'after-push work failed');
      });
    }
    res.end();
  });

  return router;
}
