import type { TopicWithCount } from '../db/tables/topics.js';
import type { EntityContext } from './users.js';

/** Projects::Topic (GitLab 17's Entities::Projects::Topic). */
export function topicView(row: TopicWithCount, ctx: EntityContext) {
  return {
    id: row.id,
    name: row.name,
    title: row.title,
    description: row.description,
    total_projects_count: row.total_projects_count,
    avatar_url: row.avatar_path ? `${ctx.externalUrl}/uploads/-/system/projects/topic/avatar/${row.id}/${encodeURIComponent(row.avatar_path)}` : null,
  };
}
