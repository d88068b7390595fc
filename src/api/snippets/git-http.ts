import type { Router } from 'express';
import { findProjectByFullPath, findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { findSnippetById, type SnippetRow } from '../../db/tables/snippets.js';
import { hasRepository } from '../../git/in-repository.js';
import { canReadSnippet, canUpdateSnippet } from '../../services/permissions.js';
import { afterSnippetPush } from '../../services/snippets/snippets.js';
import { snippetRepositoryOf } from '../../services/snippets/snippet-repository.js';
import type { SiteContext } from '../../site-context.js';
import type { ReadRouting } from '../geo/read-routing.js';
import { extraRepositoryGitRouter, GIT_DENIED, READ_ONLY_SITE, type ExtraRepositoryKind } from '../repository/extra-repository-git.js';

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

/**
 * Snippet repositories (GitLab 13+: every snippet is a repository) at GitLab's paths:
 * `/snippets/<id>.git/...` (personal) and `/<project full path>/snippets/<id>.git/...` (a
 * project's). Who may use a service, as for a project's repository: anonymous callers are
 * challenged (401) unless they only pull a snippet they may read; signed-in callers get 404 for a
 * snippet they cannot read and 403 for a push they may not make (update_snippet), or on a
 * read-only site. A repository missing on disk is 404. A push moves what the API shows (file
 * list, updated_at) and appends the Geo event.
 */
const SNIPPET_REPOSITORIES: ExtraRepositoryKind<Target> = {
  infoRefs: /^\/(?:(.+)\/)?snippets\/(\d{1,15})\.git\/info\/refs$/,
  rpc: /^\/(?:(.+)\/)?snippets\/(\d{1,15})\.git\/(git-upload-pack|git-receive-pack)$/,
  label: '/snippets/:id.git',
  geoType: 'snippet_repository',
  target: (ctx, [projectPath, id]) => targetOf(ctx, projectPath, Number(id)),
  idOf: (target) => target.snippet.id,
  async authorize(ctx, actor, target, service) {
    const project = target.project ?? (target.snippet.project_id === null ? null : (findProjectById(ctx.db, target.snippet.project_id) ?? null));
    if (!canReadSnippet(ctx.db, actor, target.snippet, project)) return actor ? { status: 404, message: NOT_FOUND } : GIT_DENIED;
    if (service === 'git-receive-pack') {
      if (!actor) return GIT_DENIED;
      if (ctx.config.role !== 'primary') return READ_ONLY_SITE;
      if (!canUpdateSnippet(ctx.db, actor, target.snippet, project)) return { status: 403, message: 'You are not allowed to update this snippet.' };
    }
    const repository = snippetRepositoryOf(ctx, target.snippet.id);
    if (!(await hasRepository(repository))) return { status: 404, message: NOT_FOUND };
    return { actor, repository, logFields: { snippet: target.snippet.id } };
  },
  afterPush: (ctx, _access, target) => afterSnippetPush(ctx, target.snippet.id),
};

/** Git smart HTTP for snippet repositories, mounted before the project router (a project could be named `snippets`). */
export const snippetGitRouter = (ctx: SiteContext, reads: ReadRouting | null): Router => extraRepositoryGitRouter(ctx, reads, SNIPPET_REPOSITORIES);
