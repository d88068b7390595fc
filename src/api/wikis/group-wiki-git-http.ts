import type { Router } from 'express';
import { findNamespaceByPath, type NamespaceRow } from '../../db/tables/namespaces.js';
import { findProjectByFullPath } from '../../db/tables/projects.js';
import { hasRepository } from '../../git/in-repository.js';
import { can } from '../../services/permissions.js';
import { groupWiki } from '../../services/wikis/wiki-container.js';
import type { SiteContext } from '../../site-context.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { extraRepositoryGitRouter, GIT_DENIED, READ_ONLY_SITE, type ExtraRepositoryKind } from '../repository/extra-repository-git.js';

const NOT_FOUND = 'The group you were looking for could not be found.';

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
 * Group wikis (ee) at `<group full path>.wiki[.git]`. Who may use a service, as for a project's
 * wiki: anonymous callers are challenged (401) unless they only pull a wiki readable without
 * membership; signed-in callers get 404 for a group they cannot read, 403 for a pull without
 * download_group_wiki_code (guests read pages through the API only) or a push without
 * create_group_wiki. The repository is made on the primary at its first use, as a project's wiki
 * is. A push appends the wiki's Geo event before the response ends.
 */
const GROUP_WIKIS: ExtraRepositoryKind<NamespaceRow> = {
  infoRefs: /^\/(.+)\.wiki(?:\.git)?\/info\/refs$/,
  rpc: /^\/(.+)\.wiki(?:\.git)?\/(git-upload-pack|git-receive-pack)$/,
  label: '/:group.wiki.git',
  geoType: 'group_wiki_repository',
  target: (ctx, [fullPath]) => groupOfPath(ctx, fullPath!),
  idOf: (group) => group.id,
  async authorize(ctx, actor, group, service) {
    if (!can(ctx.db, actor, 'read_group', group)) return actor ? { status: 404, message: NOT_FOUND } : GIT_DENIED;
    if (service === 'git-receive-pack') {
      if (!actor) return GIT_DENIED;
      if (ctx.config.role !== 'primary') return READ_ONLY_SITE;
      if (!can(ctx.db, actor, 'create_group_wiki', group)) return { status: 403, message: 'You are not allowed to write to this group wiki.' };
    } else if (!can(ctx.db, actor, 'download_group_wiki_code', group)) {
      return actor ? { status: 403, message: 'You are not allowed to download code from this group wiki.' } : GIT_DENIED;
    }
    const wiki = groupWiki(ctx, group);
    if (!(await hasRepository(wiki.repository))) {
      if (ctx.config.role !== 'primary') return { status: 404, message: NOT_FOUND };
      await wiki.create();
    }
    return { actor, repository: wiki.repository, logFields: wiki.logFields };
  },
  // Commands that could not be read may still have moved refs: the checksum of the Geo event decides.
  afterPush(ctx, access, group, updates) {
    const wiki = groupWiki(ctx, group);
    return updates.length > 0 && access.actor ? wiki.afterChange(access.actor, updates) : wiki.recordChange();
  },
};

/** Git smart HTTP for group wikis (ee), mounted before the project router; a path that names no group wiki falls through to it. */
export const groupWikiGitRouter = (ctx: SiteContext, reads: ReadRouting | null): Router => extraRepositoryGitRouter(ctx, reads, GROUP_WIKIS);
