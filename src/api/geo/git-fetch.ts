import { Router, type Request, type Response } from 'express';
import { stat } from 'node:fs/promises';
import { readHeadTarget } from '../../geo/repository-checksum.js';
import { gitItemExists, gitItemOnDisk, type GitItemType } from '../../geo/git-items.js';
import { advertiseRefs, gitProtocolOf, NO_CACHE_HEADERS, serviceRpc, type GitService } from '../../git/smart-http.js';
import type { SiteContext } from '../../site-context.js';
import { endFailedGitRpc, refuseGit, startGitRpc } from '../repository/git-rpc.js';
import { geoCaller } from './caller.js';

/** `/<type>/<id>.git/info/refs` and `/<type>/<id>.git/<service>`: a project's repository or wiki by project id, a snippet's repository by snippet id, a group's wiki by group id. */
const INFO_REFS = /^\/(repository|wiki|snippet_repository|group_wiki_repository)\/(\d{1,15})\.git\/info\/refs$/;
const RPC = /^\/(repository|wiki|snippet_repository|group_wiki_repository)\/(\d{1,15})\.git\/(git-upload-pack|git-receive-pack)$/;
/** `/<type>/<id>.git/HEAD`: where git's dumb HTTP protocol reads HEAD. */
const HEAD = /^\/(repository|wiki|snippet_repository|group_wiki_repository)\/(\d{1,15})\.git\/HEAD$/;

const UPLOAD_PACK: GitService = 'git-upload-pack';

/**
 * The repository a secondary may fetch: signed by a Geo node (401), upload-pack only (403), and
 * present on disk (404; a wiki is never created here, unlike on a user's first fetch). Responds
 * itself and returns null when refused.
 */
async function gate(ctx: SiteContext, req: Request, res: Response, service: string | undefined): Promise<string | null> {
  if (!geoCaller(ctx, req)) {
    refuseGit(res, 401, 'Geo: a valid GL-Geo token is required');
    return null;
  }
  if (service !== UPLOAD_PACK) {
    refuseGit(res, 403, 'Geo: only git-upload-pack over the smart HTTP protocol is served');
    return null;
  }
  const params = req.params as unknown as Record<string, string>;
  const type = params[0] as GitItemType;
  const itemId = Number(params[1]);
  const repository = gitItemOnDisk(ctx.config.dataDir, type, itemId);
  if (!gitItemExists(ctx.db, type, itemId) || !(await stat(repository).catch(() => null))?.isDirectory()) {
    refuseGit(res, 404, 'The repository does not exist on the primary.');
    return null;
  }
  return repository;
}

/**
 * Git smart HTTP for secondaries (issue #6, item 2), mounted at /api/v4/geo/git: a secondary
 * fetches a project's repository or wiki by project id with the site-to-site token, sent by git
 * as `http.extraHeader` (from the environment, so it never shows in a process list). Only
 * upload-pack: nothing is ever pushed to a primary this way. The request body is the pack
 * negotiation, read by git itself (the API's body parsers take JSON, forms and multipart only).
 */
export function geoGitRouter(ctx: SiteContext): Router {
  const router = Router();

  router.get(INFO_REFS, async (req, res) => {
    res.locals.route = '/api/v4/geo/git/:type/:project_id.git/info/refs';
    const repository = await gate(ctx, req, res, typeof req.query.service === 'string' ? req.query.service : undefined);
    if (!repository) return;
    res.status(200).set(NO_CACHE_HEADERS).type(`application/x-${UPLOAD_PACK}-advertisement`);
    try {
      await advertiseRefs(repository, UPLOAD_PACK, res, gitProtocolOf(req.headers['git-protocol']));
      res.end();
    } catch (error) {
      ctx.log.warn({ err: error, repository }, 'geo ref advertisement failed');
      res.destroy();
    }
  });

  // HEAD as its file holds it (`ref: refs/heads/main`, or a detached sha). A fetch never brings
  // HEAD, and the ref advertisement of an empty repository names no branch (issue 17, item 8): a
  // secondary reads it here when its copy's checksum differs, and points its own HEAD the same way.
  router.get(HEAD, async (req, res) => {
    res.locals.route = '/api/v4/geo/git/:type/:project_id.git/HEAD';
    const repository = await gate(ctx, req, res, UPLOAD_PACK);
    if (!repository) return;
    const target = await readHeadTarget(repository);
    res.status(200).set(NO_CACHE_HEADERS).type('text/plain').send(target.startsWith('refs/') ? `ref: ${target}\n` : `${target}\n`);
  });

  router.post(RPC, async (req, res) => {
    const params = req.params as unknown as Record<string, string>;
    res.locals.route = `/api/v4/geo/git/:type/:project_id.git/${params[2]}`;
    const repository = await gate(ctx, req, res, params[2]);
    if (!repository) return;
    const rpc = startGitRpc(req, res, UPLOAD_PACK);
    if (!rpc) return;
    try {
      await serviceRpc({ repository, service: UPLOAD_PACK, body: req, gzip: rpc.gzip, output: res, gitProtocol: gitProtocolOf(req.headers['git-protocol']), signal: rpc.signal });
      res.end();
    } catch (error) {
      endFailedGitRpc(ctx.log, res, rpc.signal, error, { repository, service: 'geo upload-pack' });
    }
  });

  return router;
}
