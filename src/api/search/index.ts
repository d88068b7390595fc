import type { Request, Response } from 'express';
import type { Paged } from '../../db/page.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { groupOf, loadGroup, loadProject, projectOf, requireActor, signedIn } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { bool, oneOf, required, str } from '../params.js';
import type { Route } from '../routes.js';
import type { SiteContext } from '../../site-context.js';
import type { SearchSource } from '../../services/search/records.js';
import { GLOBAL_SCOPES, GROUP_SCOPES, PROJECT_SCOPES, SCOPE_ANSWERS, type SearchQuery, type SearchScope } from './scopes.js';

/** GitLab 17's search parameters for a level's scopes: `search` and `scope` required (400), the issuable filters, `ref` for code. */
const searchParams = (name: string, scopes: readonly SearchScope[], withRef: boolean) =>
  paramsGuard(
    name,
    {
      search: required(str()),
      scope: required(oneOf(scopes)),
      state: oneOf(['opened', 'closed', 'merged', 'all'] as const),
      confidential: bool(),
      order_by: oneOf(['created_at'] as const),
      sort: oneOf(['asc', 'desc'] as const),
      ...(withRef ? { ref: str() } : {}),
      ...PAGE_PARAMS,
    },
    (params): SearchQuery => ({
      scope: params.scope,
      text: params.search,
      filters: { state: params.state, confidential: params.confidential, sort: params.sort },
      ref: 'ref' in params ? (params.ref as string | undefined) : undefined,
      page: pageOf(params),
    }),
  );

const globalParams = searchParams('globalSearchParams', GLOBAL_SCOPES, false);
const groupParams = searchParams('groupSearchParams', GROUP_SCOPES, false);
const projectParams = searchParams('projectSearchParams', PROJECT_SCOPES, true);

/**
 * Search (GitLab 17 lib/api/search.rb, basic search): signed-in callers only (401), parameters
 * before the group or project is found (400, then 404). `reads` has a secondary send code scopes
 * to the primary while its copy of the repository or wiki is not current.
 */
export const searchRoutes = (reads: ReadRouting | null): readonly Route[] => [
  { method: 'get', path: '/search', guards: [signedIn, globalParams], handler: (ctx, req, res) => answer(ctx, req, res, globalParams.of(req), { everywhere: true }) },
  { method: 'get', path: '/groups/:id/search', guards: [signedIn, groupParams, loadGroup()], handler: (ctx, req, res) => answer(ctx, req, res, groupParams.of(req), { group: groupOf(req) }) },
  { method: 'get', path: '/projects/:id/search', guards: [signedIn, projectParams, loadProject()], handler: projectSearch(reads) },
];

function projectSearch(reads: ReadRouting | null) {
  return (ctx: SiteContext, req: Request, res: Response) => {
    const query = projectParams.of(req);
    const copy = query.scope === 'wiki_blobs' ? 'wiki' : query.scope === 'blobs' || query.scope === 'commits' ? 'repository' : null;
    if (reads && copy && !reads.isCurrent(copy, projectOf(req).id)) return reads.fromPrimary(req, res);
    return answer(ctx, req, res, query, { project: projectOf(req) });
  };
}

async function answer(ctx: SiteContext, req: Request, res: Response, query: SearchQuery, source: SearchSource): Promise<void> {
  const result: Paged<unknown> = await SCOPE_ANSWERS[query.scope](ctx, requireActor(req), source, query);
  sendPage(req, res, ctx.externalUrl, query.page, result.rows, result.total);
}
