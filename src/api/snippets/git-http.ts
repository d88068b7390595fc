import { Router, type Request, type Response } from 'express';
import { findProjectByFullPath, findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { findSnippetById, type SnippetRow } from '../../db/tables/snippets.js';
import { hasRepository } from '../../git/in-repository.js';
import { gitProtocolOf, isGitService, serviceRpc, siteHooksDir, type GitService } from '../../git/smart-http.js';
import { canReadSnippet, canUpdateSnippet } from '../../services/permissions.js';
import { afterSnippetPush } from '../../services/snippets/snippets.js';
import { snippetRepositoryOf } from '../../services/snippets/snippet-repository.js';
import type { Actor } from '../../services/users/authentication.js';
import type { SiteContext } from '../../site-context.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { basicActor } from '../repository/git-http.js';
import { endFailedGitRpc, refuseGit, sendRefAdvertisement, startGitRpc } from '../repository/git-rpc.js';

/** `/snippets/<id>.git/...` (personal) and `/<project full path>/snippets/<id>.git/...` (a project's), GitLab's snippet repository paths. */
const INFO_REFS = /^\/(?:(.+)\/)?snippets\/(\d{1,15})\.git\/info\/refs$/;
const RPC = /^\/(?:(.+)\/)?snippets\/(\d{1,15})\.git\/(git-upload-pack|git-receive-pack)$/;

interface Target {
  readonly snippet: SnippetRow;
  readonly project: ProjectRow | null;
}

/** The snippet a path names: a personal one without a project path, a project's under its project's path; null otherwise. */
function targetOf(ctx: SiteContext, projectPath: string | undefined, id: number): Target | null {
  const snippet = findSnippetById(ctx.db, id);
  if (!snippet) return null;
  if (projectPath === undefined) return snippet.project_id === null ? { snippet, project: null } : null;
  const project = findProjectByFullPath(ctx.db, projectPath);
  if (!project || snippet.project_id !== project.id) return null;
  return { snippet, project };
}

const NOT_FOUND = 'The snippet you were looking for could not be found.';

/** Why a request was refused: the status and the message git shows its user (401 with the Basic challenge). */
interface Refusal {
  readonly status: 401 | 403 | 404;
  readonly message: string;
}

const DENIED: Refusal = { status: 401, message: 'HTTP Basic: Access denied' };

/**
 * Who may use `service` on the snippet, as for a project's repository: anonymous callers are
 * challenged (401) unless they only pull a snippet they may read; signed-in callers get 404 for a
 * snippet they cannot read and 403 for a push they may not make (update_snippet), or on a
 * read-only site. A repository missing on disk is 404.
 */
async function authorize(ctx: SiteContext, req: Request, target: Target, service: GitService): Promise<{ actor: Actor | null; repository: string } | Refusal> {
  const basic = basicActor(ctx, req, service);
  if (basic === 'invalid') return DENIED;
  const { actor } = basic;
  const project = target.project ?? (target.snippet.project_id === null ? null : (findProjectById(ctx.db, target.snippet.project_id) ?? null));
  if (!canReadSnippet(ctx.db, actor, target.snippet, project)) return actor ? { status: 404, message: NOT_FOUND } : DENIED;
  if (service === 'git-receive-pack') {
    if (!actor) return DENIED;
    if (ctx.config.role !== 'primary') return { status: 403, message: "You can't push code to a read-only GitLab instance." };
    if (!canUpdateSnippet(ctx.db, actor, target.snippet, project)) return { status: 403, message: 'You are not allowed to update this snippet.' };
  }
  const repository = snippetRepositoryOf(ctx, target.snippet.id);
  if (!(await hasRepository(repository))) return { status: 404, message: NOT_FOUND };
  return { actor, repository };
}

/** authorize, answering a refusal itself (null then). */
async function gate(ctx: SiteContext, req: Request, res: Response, target: Target, service: GitService): Promise<{ actor: Actor | null; repository: string } | null> {
  const result = await authorize(ctx, req, target, service);
  if (!('status' in result)) return result;
  refuseGit(res, result.status, result.message, result.status === 401);
  return null;
}

/**
 * Git smart HTTP for snippet repositories (GitLab 13+: every snippet is a repository): clone,
 * fetch and push at GitLab's paths, beside the project router (api/repository/git-http.ts),
 * mounted before it. A path that names no snippet falls through to it (a project could be
 * named `snippets`). On a secondary a pull is served from a current copy, else by the primary;
 * a push always goes to the primary. A push moves what the API shows (file list, updated_at) and
 * appends the Geo event.
 */
export function snippetGitRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  /** The snippet the path names, or where the request goes instead: the project router (`next`), or the primary. */
  const resolve = (req: Request, service: GitService): Target | 'next' | 'primary' => {
    const params = req.params as unknown as Record<string, string | undefined>;
    const target = targetOf(ctx, params[0], Number(params[1]));
    if (!target) return 'next';
    if (reads && (service === 'git-receive-pack' || !reads.isCurrent('snippet_repository', target.snippet.id))) return 'primary';
    return target;
  };

  router.get(INFO_REFS, async (req, res, next) => {
    res.locals.route = '/snippets/:id.git/info/refs';
    const service = req.query.service;
    if (!isGitService(service)) return next();
    const target = resolve(req, service);
    if (target === 'next') return next();
    if (target === 'primary') return reads!.fromPrimary(req, res);
    const access = await gate(ctx, req, res, target, service);
    if (!access) return;
    await sendRefAdvertisement(ctx.log, req, res, access.repository, service, { snippet: target.snippet.id });
  });

  router.post(RPC, async (req, res, next) => {
    const service = (req.params as unknown as Record<string, string>)[2] as GitService;
    res.locals.route = `/snippets/:id.git/${service}`;
    const target = resolve(req, service);
    if (target === 'next') return next();
    if (target === 'primary') return reads!.fromPrimary(req, res);
    const access = await gate(ctx, req, res, target, service);
    if (!access) return;
    const rpc = startGitRpc(req, res, service);
    if (!rpc) return;
    const receive = service === 'git-receive-pack';
    try {
      await serviceRpc({
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
      endFailedGitRpc(ctx.log, res, rpc.signal, error, { snippet: target.snippet.id, service });
      return;
    }
    // As after a project push: the response ends once the row and the Geo event follow the push.
    if (receive) {
      await afterSnippetPush(ctx, target.snippet.id).catch((error: unknown) => {
        ctx.log.error({ err: error, snippet: target.snippet.id }, 'after-push work failed for a snippet');
      });
    }
    res.end();
  });

  return router;
}
