import { Router, type Request, type Response } from 'express';
import type { RefUpdate } from '../../git/smart-http.js';
import { gitProtocolOf, isGitService, serviceRpc, siteHooksDir, type GitService } from '../../git/smart-http.js';
import type { BlobType } from '../../geo/blobs.js';
import type { Actor } from '../../services/users/authentication.js';
import type { SiteContext } from '../../site-context.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { basicActor } from './git-http.js';
import { admitGitRpc, endFailedGitRpc, refuseGit, sendRefAdvertisement, startGitRpc } from './git-rpc.js';

/** Why a request was refused: the status and the message git shows its user (401 with the Basic challenge). */
export interface GitRefusal {
  readonly status: 401 | 403 | 404;
  readonly message: string;
}

export const GIT_DENIED: GitRefusal = { status: 401, message: 'HTTP Basic: Access denied' };
export const READ_ONLY_SITE: GitRefusal = { status: 403, message: "You can't push code to a read-only GitLab instance." };

/** What a caller may do with the repository: its path on disk and the fields its log lines carry. */
export interface GitAccess {
  readonly actor: Actor | null;
  readonly repository: string;
  readonly logFields: Readonly<Record<string, unknown>>;
}

/** A kind of repository that is not a project's (a snippet's, a group's wiki) as smart HTTP serves it. */
export interface ExtraRepositoryKind<T> {
  /** `info/refs` and the two RPC paths; the RPC pattern's last group is the service. */
  readonly infoRefs: RegExp;
  readonly rpc: RegExp;
  /** The route template of logs and metrics, as `<label>/info/refs` and `<label>/<service>`. */
  readonly label: string;
  /** Its Geo type: a secondary serves a pull from its copy when current, else the primary does. */
  readonly geoType: BlobType;
  /** What the path's captures name; null when they name none of this kind (the next router answers). */
  target(ctx: SiteContext, captures: readonly (string | undefined)[]): T | null;
  idOf(target: T): number;
  /** Who may use the service (the signed-in caller, or anonymous); a refusal otherwise. */
  authorize(ctx: SiteContext, actor: Actor | null, target: T, service: GitService): Promise<GitAccess | GitRefusal>;
  /** After a receive-pack that wrote: the rows and the Geo event the push moves, before the response ends. */
  afterPush(ctx: SiteContext, access: GitAccess, target: T, updates: readonly RefUpdate[]): Promise<void>;
}

/** A capture that is no valid percent-encoding names nothing here: kept as sent, it matches no path and the next router answers. */
function decoded(capture: string): string {
  try {
    return decodeURIComponent(capture);
  } catch {
    return capture;
  }
}

/**
 * Git smart HTTP for one extra kind of repository, mounted before the project router, which
 * answers what the paths name none of. On a secondary a pull is served from a current copy, else
 * by the primary; a push always goes to the primary.
 */
export function extraRepositoryGitRouter<T>(ctx: SiteContext, reads: ReadRouting | null, kind: ExtraRepositoryKind<T>): Router {
  const router = Router();
  /** The path's captures, decoded as express decodes route parameters, unmatched groups as undefined in their place. */
  const captures = (req: Request, pattern: RegExp) => pattern.exec(req.path)!.slice(1).map((capture) => (capture === undefined ? capture : decoded(capture)));
  /** The target, or where the request goes instead: the project router (`next`), or the primary. */
  const resolve = (req: Request, pattern: RegExp, service: GitService): T | 'next' | 'primary' => {
    const target = kind.target(ctx, captures(req, pattern));
    if (target === null) return 'next';
    if (reads && (service === 'git-receive-pack' || !reads.isCurrent(kind.geoType, kind.idOf(target)))) return 'primary';
    return target;
  };
  /** The caller's access, or null once a refusal is answered. */
  const gate = async (req: Request, res: Response, target: T, service: GitService): Promise<GitAccess | null> => {
    const basic = basicActor(ctx, req, service);
    const result = basic === 'invalid' ? GIT_DENIED : await kind.authorize(ctx, basic.actor, target, service);
    if (!('status' in result)) return result;
    refuseGit(res, result.status, result.message, result.status === 401);
    return null;
  };

  router.get(kind.infoRefs, async (req, res, next) => {
    res.locals.route = `${kind.label}/info/refs`;
    const service = req.query.service;
    if (!isGitService(service)) return next();
    const target = resolve(req, kind.infoRefs, service);
    if (target === 'next') return next();
    if (target === 'primary') return reads!.fromPrimary(req, res);
    const access = await gate(req, res, target, service);
    if (!access || !(await admitGitRpc(ctx, req, res, service))) return;
    await sendRefAdvertisement(ctx.log, req, res, access.repository, service, access.logFields);
  });

  router.post(kind.rpc, async (req, res, next) => {
    const service = captures(req, kind.rpc).at(-1) as GitService;
    res.locals.route = `${kind.label}/${service}`;
    const target = resolve(req, kind.rpc, service);
    if (target === 'next') return next();
    if (target === 'primary') return reads!.fromPrimary(req, res);
    const access = await gate(req, res, target, service);
    if (!access || !(await admitGitRpc(ctx, req, res, service))) return;
    const rpc = startGitRpc(req, res, service);
    if (!rpc) return;
    const receive = service === 'git-receive-pack';
    let updates: readonly RefUpdate[];
    try {
      updates = await serviceRpc({
        repository: access.repository,
        service,
        body: req,
        gzip: rpc.gzip,
        output: res,
        hooksDir: receive ? await siteHooksDir(ctx.config.dataDir) : undefined,
        gitProtocol: gitProtocolOf(req.headers['git-protocol']),
        signal: rpc.signal,
      });
    } catch (error) {
      endFailedGitRpc(ctx.log, res, rpc.signal, error, { ...access.logFields, service });
      return;
    }
    // As after a project push: the response ends once the rows and the Geo event follow the push.
    if (receive) {
      await kind.afterPush(ctx, access, target, updates).catch((error: unknown) => {
        ctx.log.error({ err: error, ...access.logFields }, 'after-push work failed');
      });
    }
    res.end();
  });

  return router;
}
