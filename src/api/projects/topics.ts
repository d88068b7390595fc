import type { Request, Response } from 'express';
import { topicView } from '../../entities/topics.js';
import { createTopic, deleteTopic, getTopic, listTopics, mergeTopics, updateTopic } from '../../services/projects/topics.js';
import type { SiteContext } from '../../site-context.js';
import { admin } from '../middleware/guards.js';
import { avatarChange, avatarFile, paramsGuard, pathId } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { bool, int, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { Route } from '../routes.js';

const topicId = pathId('id');

const topicListParams = paramsGuard('topicListParams', { search: str(), without_projects: bool(), ...PAGE_PARAMS }, (params) => ({
  filters: { search: params.search, withoutProjects: params.without_projects },
  page: pageOf(params),
}));

const topicCreateParams = paramsGuard('topicCreateParams', { name: required(str()), title: required(str()), description: str() });
const topicUpdateParams = paramsGuard('topicUpdateParams', { name: str(), title: str(), description: str() });
const topicMergeParams = paramsGuard('topicMergeParams', { source_topic_id: required(int()), target_topic_id: required(int()) });

/**
 * Project topics (GitLab 14+ lib/api/topics.rb): anyone reads them, admins write them. A numeric
 * path id is checked (400) before the admin check, as Grape validates it first.
 */
export const topicsRoutes: readonly Route[] = [
  { method: 'get', path: '/topics', guards: [topicListParams], handler: listTopicsHandler },
  { method: 'get', path: '/topics/:id', guards: [topicId], handler: showTopic },
  { method: 'post', path: '/topics', guards: [topicCreateParams, avatarFile, admin], handler: addTopic },
  { method: 'post', path: '/topics/merge', guards: [topicMergeParams, admin], handler: mergeTopicsHandler },
  { method: 'put', path: '/topics/:id', guards: [topicId, avatarChange, topicUpdateParams, admin], handler: editTopic },
  { method: 'delete', path: '/topics/:id', guards: [topicId, admin], handler: removeTopic },
];

function listTopicsHandler(ctx: SiteContext, req: Request, res: Response): void {
  const { filters, page } = topicListParams.of(req);
  const result = listTopics(ctx.db, filters, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => topicView(row, ctx)), result.total);
}

function showTopic(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, topicView(getTopic(ctx.db, topicId.of(req)), ctx));
}

async function addTopic(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const topic = await createTopic(ctx.db, ctx.config.dataDir, topicCreateParams.of(req), avatarFile.of(req));
  sendJson(res, 201, topicView(topic, ctx));
}

async function editTopic(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  // GitLab removes the avatar when `avatar` is sent empty (topics.rb: params.key?(:avatar) && nil).
  const avatar = avatarChange.of(req);
  const topic = await updateTopic(ctx.db, ctx.config.dataDir, topicId.of(req), topicUpdateParams.of(req), avatar ? { store: avatar } : avatar === null ? 'remove' : undefined);
  sendJson(res, 200, topicView(topic, ctx));
}

async function removeTopic(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await deleteTopic(ctx.db, ctx.config.dataDir, topicId.of(req));
  sendNoContent(res);
}

async function mergeTopicsHandler(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { source_topic_id: source, target_topic_id: target } = topicMergeParams.of(req);
  sendJson(res, 201, topicView(await mergeTopics(ctx.db, ctx.config.dataDir, source, target), ctx));
}
