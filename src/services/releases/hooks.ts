import type { ProjectRow } from '../../db/tables/projects.js';
import { isExternalLink, releaseSources, type ReleaseView } from '../../entities/releases.js';
import type { SiteContext } from '../../site-context.js';
import { fireProjectHooks } from '../hooks/fire.js';
import { hookProjectOf } from '../hooks/subjects.js';

export type ReleaseHookAction = 'create' | 'update' | 'delete';

/**
 * Fires the "Release Hook" (Gitlab::HookData::ReleaseBuilder): the release's safe attributes, its
 * project, URL, action, assets (links and sources) and commit. Called inside the transaction of the
 * change, so a rolled-back change fires nothing.
 */
export function fireReleaseHooks(ctx: SiteContext, project: ProjectRow, view: ReleaseView, action: ReleaseHookAction): void {
  const { release } = view;
  const sources = releaseSources(view.project, release.tag);
  fireProjectHooks(ctx, project, 'release', {
    id: release.id,
    created_at: release.created_at,
    description: release.description,
    name: release.name,
    released_at: release.released_at,
    tag: release.tag,
    object_kind: 'release',
    project: hookProjectOf(ctx, project),
    url: `${view.project.webUrl}/-/releases/${encodeURIComponent(release.tag)}`,
    action,
    assets: {
      count: view.links.length + sources.length,
      links: view.links.map((link) => ({ id: link.id, external: isExternalLink(link, view.project), link_type: link.link_type, name: link.name, url: link.url })),
      sources,
    },
    commit: view.commit
      ? {
          id: view.commit.id,
          message: view.commit.message,
          title: view.commit.message.split('\n')[0],
          timestamp: view.commit.committedDate,
          url: `${view.project.webUrl}/-/commit/${view.commit.id}`,
          author: { name: view.commit.authorName, email: view.commit.authorEmail },
        }
      : null,
  });
}
