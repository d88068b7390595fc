import { forbidden, notFound } from '../../errors.js';
import { assertSnippetEditable, findReadableSnippet, type LoadedSnippet } from '../../services/snippets/snippets.js';
import { canCreatePersonalSnippet, canCreateProjectSnippet } from '../../services/permissions.js';
import { projectOf } from '../middleware/guards.js';
import { pathId, valueGuard, type ValueGuard } from '../middleware/value-guards.js';
import type { Guard } from '../routes.js';

export const snippetId = pathId('id');
export const projectSnippetId = pathId('snippet_id');

/** The project's snippets feature: off is 403 to whoever sees the project (GitLab's check_snippets_enabled). */
export const snippetsEnabled: Guard = {
  name: 'snippetsEnabled',
  check: (_ctx, req) => {
    if (projectOf(req).snippets_enabled !== 1) throw forbidden();
  },
};

/** `/snippets/:id`: any snippet the caller may read (GitLab's SnippetsFinder without a project); 404 otherwise. */
export const readableSnippet: ValueGuard<LoadedSnippet> = valueGuard('readableSnippet', (ctx, req) => findReadableSnippet(ctx, req.actor, snippetId.of(req), null));

/** PUT and DELETE `/snippets/:id`: the caller's own snippets only (GitLab's snippets_for_current_user), then update_snippet (403). */
export const ownSnippet: ValueGuard<LoadedSnippet> = valueGuard('ownSnippet', (ctx, req) => {
  const loaded = findReadableSnippet(ctx, req.actor, snippetId.of(req), null);
  if (loaded.snippet.author_id !== req.actor?.user.id) throw notFound('Snippet');
  assertSnippetEditable(ctx, req.actor, loaded);
  return loaded;
});

/** `/projects/:id/snippets/:snippet_id`: a snippet of the loaded project the caller may read; 404 otherwise. */
export const projectSnippet: ValueGuard<LoadedSnippet> = valueGuard('projectSnippet', (ctx, req) => findReadableSnippet(ctx, req.actor, projectSnippetId.of(req), projectOf(req)));

/** After projectSnippet: update_snippet / admin_snippet (403). */
export const editableSnippet: Guard = {
  name: 'editableSnippet',
  check: (ctx, req) => assertSnippetEditable(ctx, req.actor, projectSnippet.of(req)),
};

/** After loadProject: create_snippet on the project (403). */
export const projectSnippetCreator: Guard = {
  name: 'projectSnippetCreator',
  check: (ctx, req) => {
    if (!canCreateProjectSnippet(ctx.db, req.actor, projectOf(req))) throw forbidden();
  },
};

/** POST /snippets: create_snippet of the global policy (external users may not, 403). */
export const personalSnippetCreator: Guard = {
  name: 'personalSnippetCreator',
  check: (_ctx, req) => {
    if (!canCreatePersonalSnippet(req.actor)) throw forbidden();
  },
};
