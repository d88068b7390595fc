import type { Request, Response } from 'express';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { projectBasic, projectWithAccess } from '../../entities/projects.js';
import { VISIBILITY_NAMES } from '../../db/levels.js';
import { PROJECT_ORDERS, type ProjectFilters } from '../../services/projects/lists.js';
import { loadProjectRelations, withStatistics } from '../../services/projects/relations.js';
import type { SiteContext } from '../../site-context.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { badRequest } from '../../errors.js';
import { ACCESS_LEVELS } from '../../db/levels.js';
import { bool, datetime, hash, int, intOneOf, list, oneOf, str } from '../params.js';


/** What a project list answers: BasicProjectDetails for anonymous callers and `simple=true`, else ProjectWithAccess (GITLAB-NOTES 2.2). */
export async function sendProjects(
  ctx: SiteContext,
  req: Request,
  res: Response,
  list: (filters: ProjectFilters, page: Page) => Paged<ProjectRow>,
): Promise<void> {
  const { filters, simple, statistics, page } = projectListParams.of(req);
  const result = list(filters, page);
  let rel = loadProjectRelations(ctx.db, req.actor, result.rows);
  const basic = simple || !req.actor;
  if (statistics && !basic) rel = await withStatistics(rel, ctx.config.dataDir, result.rows, ctx.db);
  const view = basic ? projectBasic : projectWithAccess;
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => view(row, rel, ctx)), result.total);
}

/** A project list's filters and page (GitLab's projects finder parameters). */
export const projectListParams = paramsGuard(
  'projectListParams',
  {
    archived: bool(),
    visibility: oneOf(VISIBILITY_NAMES),
    order_by: oneOf(PROJECT_ORDERS),
    sort: oneOf(['asc', 'desc'] as const),
    search: str(),
    simple: bool(),
    owned: bool(),
    membership: bool(),
    starred: bool(),
    statistics: bool(),
    with_issues_enabled: bool(),
    with_merge_requests_enabled: bool(),
    custom_attributes: hash(),
    topic: list(str()),
    topic_id: int(),
    min_access_level: intOneOf(ACCESS_LEVELS),
    search_namespaces: bool(),
    imported: bool(),
    active: bool(),
    id_after: int(),
    id_before: int(),
    last_activity_after: datetime(),
    last_activity_before: datetime(),
    updated_after: datetime(),
    updated_before: datetime(),
    repository_storage: str(),
    ...PAGE_PARAMS,
  },
  (params): { filters: ProjectFilters; simple: boolean; statistics: boolean; page: Page } => {
    // GitLab: an updated_at range walks the updated_at index only when the list is in that order.
    if ((params.updated_after || params.updated_before) && params.order_by !== undefined && params.order_by !== 'updated_at') {
      throw badRequest('400 Bad request - `updated_at` filter and `updated_at` sorting must be paired');
    }
    return {
    filters: {
      archived: params.archived,
      visibility: params.visibility,
      orderBy: params.order_by,
      sort: params.sort,
      search: params.search,
      owned: params.owned,
      membership: params.membership,
      starred: params.starred,
      withIssuesEnabled: params.with_issues_enabled,
      withMergeRequestsEnabled: params.with_merge_requests_enabled,
      customAttributes: params.custom_attributes,
      topics: params.topic?.map((topic) => topic.trim()).filter(Boolean),
      topicId: params.topic_id,
      minAccessLevel: params.min_access_level,
      searchNamespaces: params.search_namespaces,
      imported: params.imported,
      active: params.active,
      idAfter: params.id_after,
      idBefore: params.id_before,
      lastActivityAfter: params.last_activity_after,
      lastActivityBefore: params.last_activity_before,
      updatedAfter: params.updated_after,
      updatedBefore: params.updated_before,
      repositoryStorage: params.repository_storage,
    },
    simple: params.simple === true,
    statistics: params.statistics === true,
    page: pageOf(params),
    };
  },
);
