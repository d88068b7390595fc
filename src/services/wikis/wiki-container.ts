import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { recordGroupWikiChange } from '../../geo/group-wiki-events.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { createGroupWikiRepository, createWikiRepository } from '../../git/repositories.js';
import type { RefUpdate } from '../../git/smart-http.js';
import type { SiteContext } from '../../site-context.js';
import { groupWikiRepositoryPath, wikiRepositoryPath } from '../../storage/layout.js';
import { afterWikiPush } from '../repository/after-push.js';
import type { Actor } from '../users/authentication.js';

/**
 * What owns a wiki (GitLab's Wiki.for_container): a project, or a group (ee). The page and
 * attachment services work on any container; only where its repository lives and what follows a
 * change differ.
 */
export interface WikiContainer {
  /** The wiki's bare repository on this site. */
  readonly repository: string;
  /** Log fields naming the container. */
  readonly logFields: Readonly<Record<string, number>>;
  /** Creates the empty repository and records its Geo `created` event. */
  create(): Promise<void>;
  /** What follows moved refs: the Geo event first, then the container's hooks and activity. */
  afterChange(actor: Actor, updates: readonly RefUpdate[], moved?: { readonly from: string; readonly to: string }): Promise<void>;
  /** The Geo event alone (when the rest of afterChange failed: the change must still replicate). */
  recordChange(): Promise<void>;
}

/** A project's wiki: `wiki_page` hooks and the project's activity follow a change. */
export function projectWiki(ctx: SiteContext, project: ProjectRow): WikiContainer {
  return {
    repository: wikiRepositoryPath(ctx.config.dataDir, project.id),
    logFields: { project_id: project.id },
    create: async () => {
      await createWikiRepository(ctx.config.dataDir, project.id);
      await recordRepositoryChange(ctx.db, ctx.config.dataDir, project.id, 'wiki', 'created');
    },
    afterChange: (actor, updates, moved) => afterWikiPush(ctx, project, actor, updates, moved),
    recordChange: () => recordRepositoryChange(ctx.db, ctx.config.dataDir, project.id, 'wiki', 'updated'),
  };
}

/**
 * A group's wiki (ee): a change is followed by its Geo event only. GitLab fires no hooks for group
 * wikis either (its wiki_page data builder answers nothing for a group container).
 */
export function groupWiki(ctx: SiteContext, group: NamespaceRow): WikiContainer {
  const recordChange = () => recordGroupWikiChange(ctx.db, ctx.config.dataDir, group.id, 'updated');
  return {
    repository: groupWikiRepositoryPath(ctx.config.dataDir, group.id),
    logFields: { group_id: group.id },
    create: async () => {
      await createGroupWikiRepository(ctx.config.dataDir, group.id);
      await recordGroupWikiChange(ctx.db, ctx.config.dataDir, group.id, 'created');
    },
    afterChange: (_actor, updates) => (updates.length ? recordChange() : Promise.resolve()),
    recordChange,
  };
}
