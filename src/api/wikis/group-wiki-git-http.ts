import { Router, type Request, type Response } from 'express';
import { findNamespaceByPath, type NamespaceRow } from '../../db/tables/namespaces.js';
import { findProjectByFullPath } from '../../db/tables/projects.js';
import { hasRepository } from '../../git/in-repository.js';
import { gitProtocolOf, isGitService, serviceRpc, siteHooksDir, type GitService } from '../../git/smart-http.js';
import { can } from '../../services/permissions.js';
import type { Actor } from '../../services/users/authentication.js';
import { groupWiki, type WikiContainer } from '../../services/wikis/wiki-container.js';
import type { SiteContext } from '../../site-context.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { basicActor } from '../repository/git-http.js';
import { endFailedGitRpc, refuseGit, sendRefAdvertisement, startGitRpc } from '../repository/git-rpc.js';

/** `/<group full path>.wiki[.git]/info/refs` and `/<group full path>.wiki[.git]/git-(upload|receive)-pack`. */
const INFO_REFS = /^\/(.+)\.wiki(?:\.git)?\/info\/refs$/;
const RPC = /^\/(.+)\.wiki(?:\.git)?\/(git-upload-pack|git-receive-pack)$/;

const NOT_FOUND = 'The group you were looking for could not be found.';

/** Why a request was refused: the status and the message git shows its user (401 with the Basic challenge). */
interface Refusal {
  readonly status: 401 | 403 | 404;
  readonly message: string;
}

const DENIED: Refusal = { status: 401, message: 'HTTP Basic: Access denied' };

/**
 * The group whose wiki a path names, in ee; null when the path is a project's (its wiki, or a
 * project named `<x>.wiki`, which win as GitLab's routes do) or no group's: the project router answers.
 */
function groupOfPath(ctx: SiteContext, fullPath: string): NamespaceRow | null {
  if (ctx.config.edition !== 'ee') return null;
  if (findProjectByFullPath(ctx.db, fullPath) || findProjectByFullPath(ctx.db, `${fullPath}.wiki`)) return null;
  const group = findNamespaceByPath(ctx.db, fullPath);
  return group?.kind === 'group' ? group : null;
}

/**
 * Who may use `service` on the group's wiki, as for a project's: anonymous callers are challenged
 * (401) unless they only pull a wiki readable without membership; signed-in callers get 404 for a
 * group they cannot read, 403 for a pull without download_group_wiki_code (guests read pages
 * through the API only) or a push without create_group_wiki. The repository is made on the
 * primary at its first use, as a project's wiki is.
 */
async function authorize(ctx: SiteContext, req: Request, group: NamespaceRow, service: GitService): Promise<{ actor: Actor | null; wiki: WikiContainer } | Refusal> {
  const basic = basicActor(ctx, req, service);
  if (basic === 'invalid') return DENIED;
  const { actor } = basic;
  if (!can(ctx.db, actor, 'read_group', group)) return actor ? { status: 404, message: NOT_FOUND } : DENIED;
  if (service === 'git-receive-pack') {
    if (!actor) return DENIED;
    if (ctx.config.role !== 'primary') return { status: 403, message: "You can't push code to a read-only GitLab instance." };
    if (!can(ctx.db, actor, 'create_group_wiki', group)) return { status: 403, message: 'You are not allowed to write to this group wiki.' };
  } else if (!can(ctx.db, actor, 'download_group_wiki_code', group)) {
    return actor ? { status: 403, message: 'You are not allowed to download code from this group wiki.' } : DENIED;
  }
  const wiki = groupWiki(ctx, group);
  if (!(await hasRepository(wiki.repository))) {
    if (ctx.config.role !== 'primary') return { status: 404, message: NOT_FOUND };
    await wiki.create();
  }
  return { actor, wiki };
}

async function gate(ctx: SiteContext, req: Request, res: Response, group: NamespaceRow, service: GitService): Promise<{ actor: Actor | null; wiki: WikiContainer } | null> {
  const result = await authorize(ctx, req, group, service);
  if (!('status' in result)) return result;
  refuseGit(res, result.status, result.message, result.status === 401);
  return null;
}

/**
 * Git smart HTTP for group wikis (ee) at `<group full path>.wiki.git`, mounted before the project
 * router; a path that names no group wiki falls through to it. On a secondary a pull is served
 * from a current copy, else by the primary; a push always goes to the primary. A push appends the
 * wiki's Geo event before the response ends.
 */
export function groupWikiGitRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  const resolve = (req: Request, service: GitService): NamespaceRow | 'next' | 'primary' => {
    const group = groupOfPath(ctx, (req.params as unknown as Record<string, string>)[0]!);
    if (!group) return 'next';
    if (reads && (service === 'git-receive-pack' || !reads.isCurrent('group_wiki_repository', group.id))) return 'primary';
    return group;
  };

  router.get(INFO_REFS, async (req, res, next) => {
    res.locals.route = '/:group.wiki.git/info/refs';
    const service = req.query.service;
    if (!isGitService(service)) return next();
    const group = resolve(req, service);
    if (group === 'next') return next();
    if (group === 'primary') return reads!.fromPrimary(req, res);
    const access = await gate(ctx, req, res, group, service);
    if (!access) return;
    await sendRefAdvertisement(ctx.log, req, res, access.wiki.repository, service, access.wiki.logFields);
  });

  router.post(RPC, async (req, res, next) => {
    const service = (req.params as unknown as Record<string, string>)[1] as GitService;
    res.locals.route = `/:group.wiki.git/${service}`;
    const group = resolve(req, service);
    if (group === 'next') return next();
    if (group === 'primary') return reads!.fromPrimary(req, res);
    const access = await gate(ctx, req, res, group, service);
    if (!access) return;
    const rpc = startGitRpc(req, res, service);
    if (!rpc) return;
    const receive = service === 'git-receive-pack';
    let updates;
    try {
      updates = await serviceRpc({
        repository: access.wiki.repository,
        service,
        body: req,
        gzip: rpc.gzip,
        output: res,
        hooksDir: receive ? await siteHooksDir(ctx.config.dataDir) : undefined,
        gitProtocol: gitProtocolOf(req.headers['git-protocol']),
        signal: rpc.signal,
      });
    } catch (error) {
      endFailedGitRpc(ctx.log, res, rpc.signal, error, { ...access.wiki.logFields, service });
      return;
    }
    // As after a project push: the response ends once the Geo event follows the push. Commands
    // that could not be read may still have moved refs: the checksum decides.
    if (receive && access.actor) {
      const followUp = updates.length > 0 ? access.wiki.afterChange(access.actor, updates) : access.wiki.recordChange();
      await followUp.catch((error: unknown) => {
        ctx.log.error({ err: error, ...access.wiki.logFields }, 'after-push work failed for a group wiki');
      });
    }
    res.end();
  });

  return router;
}
