import { Router, type Request, type Response } from 'express';
import { stat } from 'node:fs/promises';
import { findProjectByFullPath, type ProjectRow } from '../../db/tables/projects.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { createWikiRepository } from '../../git/repositories.js';
import { repositoryPath, wikiRepositoryPath } from '../../storage/layout.js';
import { gitProtocolOf, isGitService, serviceRpc, siteHooksDir, type GitService } from '../../git/smart-http.js';
import { afterPush, afterWikiPush } from '../../services/repository/after-push.js';
import { authenticateCredential, touchActivity, type Actor } from '../../services/users/authentication.js';
import { can } from '../../services/permissions.js';
import { refPolicyFor, refPolicyText } from '../../services/repository/ref-policy.js';
import type { SiteContext } from '../../site-context.js';
import { admitGitRpc, endFailedGitRpc, refuseGit, sendRefAdvertisement, startGitRpc } from './git-rpc.js';

/** `/<full path>[.git]/info/refs` and `/<full path>[.git]/git-(upload|receive)-pack`; the `.git` suffix is optional. */
const INFO_REFS = /^\/(.+?)(?:\.git)?\/info\/refs$/;
const RPC = /^\/(.+?)(?:\.git)?\/(git-upload-pack|git-receive-pack)$/;

/** A refusal git shows its user, with the Basic challenge on a 401. */
const refuse = (res: Response, status: 401 | 403 | 404 | 415, message: string): void => refuseGit(res, status, message, status === 401);

type Basic = { actor: Actor | null } | 'invalid';

/**
 * HTTP Basic with any username (`oauth2` among them) and a token as the password: personal,
 * impersonation or OAuth. A token must carry a repository scope (or `api`) for the service.
 */
export function basicActor(ctx: SiteContext, req: Request, service: GitService): Basic {
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

export interface Access {
  project: ProjectRow;
  actor: Actor | null;
  repository: string;
  /** True when the path named the project's wiki (`<full path>.wiki.git`). */
  wiki: boolean;
}

/** Why a request was refused: the status and the message git (or git-lfs) shows its user. */
export interface Refusal {
  status: 401 | 403 | 404;
  message: string;
}

const NOT_FOUND: Refusal = { status: 404, message: 'The project you were looking for could not be found.' };
const DENIED: Refusal = { status: 401, message: 'HTTP Basic: Access denied' };

/**
 * The project (or, for `<full path>.wiki`, the project whose wiki) a git path names. A real
 * project whose path ends in `.wiki` wins over a wiki.
 */
function projectOfPath(ctx: SiteContext, fullPath: string): { project: ProjectRow; wiki: boolean } | null {
  const project = findProjectByFullPath(ctx.db, fullPath);
  if (project) return { project, wiki: false };
  if (!fullPath.endsWith('.wiki')) return null;
  const owner = findProjectByFullPath(ctx.db, fullPath.slice(0, -'.wiki'.length));
  return owner ? { project: owner, wiki: true } : null;
}

/**
 * Who may use `service` on the project at `fullPath`, GitLab's way: anonymous callers are
 * challenged (401, so git asks for credentials) unless the project is public and they only pull;
 * signed-in callers get 404 for a project they cannot see and 403 for one they may not pull
 * from or push to. A wiki path names the project's wiki repository (unless `allowWiki` is false),
 * created on first use when the wiki is enabled. A repository missing on disk is 404.
 */
export async function authorizeGit(
  ctx: SiteContext,
  req: Request,
  fullPath: string,
  service: GitService,
  options: { allowWiki?: boolean } = {},
): Promise<Access | Refusal> {
  const basic = basicActor(ctx, req, service);
  if (basic === 'invalid') return DENIED;
  const { actor } = basic;
  const found = visibleTarget(ctx, actor, fullPath, options.allowWiki !== false);
  if (!found) return actor ? NOT_FOUND : DENIED;
  const refusal = service === 'git-receive-pack' ? pushRefusal(ctx, actor, found.project) : pullRefusal(ctx, actor, found.project);
  if (refusal) return refusal;
  const repository = await repositoryOnDisk(ctx, found.project, found.wiki);
  return repository ? { ...found, actor, repository } : NOT_FOUND;
}

/** The project (or its wiki) the path names, when the actor may read the project and the wiki is allowed and enabled. */
function visibleTarget(ctx: SiteContext, actor: Actor | null, fullPath: string, allowWiki: boolean): { project: ProjectRow; wiki: boolean } | null {
  const found = projectOfPath(ctx, fullPath);
  if (!found || !can(ctx.db, actor, 'read_project', found.project)) return null;
  if (found.wiki && (!allowWiki || !found.project.wiki_enabled)) return null;
  return found;
}

/** Why a push is refused, in GitLab's words; null when it may go ahead. */
function pushRefusal(ctx: SiteContext, actor: Actor | null, project: ProjectRow): Refusal | null {
  if (!actor) return DENIED;
  if (ctx.config.role !== 'primary') return { status: 403, message: "You can't push code to a read-only GitLab instance." };
  if (project.archived) return { status: 403, message: 'You are not allowed to push code to an archived project.' };
  if (!can(ctx.db, actor, 'push_code', project)) return { status: 403, message: 'You are not allowed to push code to this project.' };
  return null;
}

/** Why a pull (clone, fetch) is refused; null when it may go ahead. */
function pullRefusal(ctx: SiteContext, actor: Actor | null, project: ProjectRow): Refusal | null {
  if (can(ctx.db, actor, 'download_code', project)) return null;
  return actor ? { status: 403, message: 'You are not allowed to download code from this project.' } : DENIED;
}

/** The repository's directory, or null when it is not on disk; the wiki repository is created lazily, on the primary, the first time it is asked for. */
async function repositoryOnDisk(ctx: SiteContext, project: ProjectRow, wiki: boolean): Promise<string | null> {
  const repository = wiki ? wikiRepositoryPath(ctx.config.dataDir, project.id) : repositoryPath(ctx.config.dataDir, project.id);
  // stat fails when nothing is there: that is the answer, not an error.
  if ((await stat(repository).catch(() => null))?.isDirectory()) return repository;
  if (!wiki || ctx.config.role !== 'primary') return null;
  await createWikiRepository(ctx.config.dataDir, project.id);
  await recordRepositoryChange(ctx.db, ctx.config.dataDir, project.id, 'wiki', 'created');
  return repository;
}

/**
 * On a secondary: whether this site answers a git request itself. A push always goes to the
 * primary (GitLab proxies pushes too); a pull stays here only when the local copy is current.
 * A path naming no project here is answered here (404), as every read of a replicated row is.
 */
function servedHere(ctx: SiteContext, reads: ReadRouting, fullPath: string, service: GitService): boolean {
  if (service === 'git-receive-pack') return false;
  const found = projectOfPath(ctx, fullPath);
  return found === null || reads.isCurrent(found.wiki ? 'wiki' : 'repository', found.project.id);
}

async function gate(ctx: SiteContext, req: Request, res: Response, fullPath: string, service: GitService): Promise<Access | null> {
  const result = await authorizeGit(ctx, req, fullPath, service);
  if ('status' in result) {
    refuse(res, result.status, result.message);
    return null;
  }
  return result;
}

/**
 * Git smart HTTP (GITLAB-NOTES 5): the ref advertisement and the two stateless RPCs, git's own
 * upload-pack and receive-pack streamed both ways. Outside /api/v4 and before any body parser:
 * the request body is the pack.
 */
export function gitHttpRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
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
    if (reads && !servedHere(ctx, reads, params[0]!, service)) return reads.fromPrimary(req, res);
    const access = await gate(ctx, req, res, params[0]!, service);
    if (!access || !(await admitGitRpc(ctx, req, res, service))) return;
    await sendRefAdvertisement(ctx.log, req, res, access.repository, service, { project: access.project.id });
  });

  router.post(RPC, async (req, res) => {
    const params = req.params as unknown as Record<string, string>;
    const service = params[1] as GitService;
    res.locals.route = `/:namespace/:project.git/${service}`;
    if (reads && !servedHere(ctx, reads, params[0]!, service)) return reads.fromPrimary(req, res);
    const access = await gate(ctx, req, res, params[0]!, service);
    if (!access || !(await admitGitRpc(ctx, req, res, service))) return;
    const rpc = startGitRpc(req, res, service);
    if (!rpc) return;
    const receive = service === 'git-receive-pack';
    let updates;
    try {
      updates = await serviceRpc({
        repository: access.repository,
        service,
        body: req,
        gzip: rpc.gzip,
        output: res,
        hooksDir: receive ? await siteHooksDir(ctx.config.dataDir) : undefined,
        refPolicy: receive && !access.wiki ? refPolicyText(refPolicyFor(ctx.db, access.actor, access.project)) : undefined,
        gitProtocol: gitProtocolOf(req.headers['git-protocol']),
        signal: rpc.signal,
      });
    } catch (error) {
      endFailedGitRpc(ctx.log, res, rpc.signal, error, { project: access.project.id, service });
      return;
    }
    // The response ends after the push's follow-up, so a client (or test) that saw the push
    // finish sees its hooks queued too; git waits on post-receive work the same way.
    if (receive && access.actor) {
      const followUp =
        updates.length > 0
          ? (access.wiki ? afterWikiPush : afterPush)(ctx, access.project, access.actor, updates)
          : // Commands that could not be read (a push certificate, an oversized list) may still have
            // moved refs: the checksum decides, and an unchanged repository appends no event.
            recordRepositoryChange(ctx.db, ctx.config.dataDir, access.project.id, access.wiki ? 'wiki' : 'repository', 'updated');
      await followUp.catch((error: unknown) => {
        ctx.log.error({ err: error, project: access.project.id }, 'after-push work failed');
      });
    }
    res.end();
  });

  return router;
}
