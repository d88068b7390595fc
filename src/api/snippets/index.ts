import { snippetNoteable } from '../../services/issuables/noteables.js';
import { noteableRoutes } from '../issuables/note-routes.js';
import { admin, loadProject, projectOf, signedIn } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { valueGuard } from '../middleware/value-guards.js';
import type { ReadRouting } from '../geo/read-routing.js';
import type { Route } from '../routes.js';
import {
  editableSnippet,
  ownSnippet,
  personalSnippetCreator,
  projectSnippet,
  projectSnippetCreator,
  projectSnippetId,
  readableSnippet,
  snippetId,
  snippetsEnabled,
} from './snippet-guards.js';
import { personalSnippetCreateParams, projectSnippetCreateParams, snippetFileRef, snippetListParams, snippetUpdateParams } from './snippet-params.js';
import { addPersonalSnippet, addProjectSnippet, editSnippet, listSnippetsOf, removeSnippet, showRaw, showRawFile, showSnippet, showSnippetUserAgentDetail } from './snippets.js';

/**
 * Snippets (GitLab's lib/api/snippets.rb and project_snippets.rb; issue 26, item 2): personal ones
 * under /snippets, a project's under /projects/:id/snippets (its snippets feature off is 403).
 * Order as GitLab: 401, 400 for declared parameters, 404 for a project or snippet the caller may
 * not see, then 403. The raw reads come from the snippet's repository (`reads`: a secondary whose
 * copy is not current asks the primary). A project snippet's notes, discussions and award emoji
 * are the issuables' routes with the snippet as noteable.
 */
const base = '/projects/:id/snippets';
const one = `${base}/:snippet_id`;
const inProject = [loadProject(), snippetsEnabled];
const readable = [projectSnippetId, ...inProject, projectSnippet];
/** A project snippet the caller may read, as a noteable (notes, discussions and award emoji reuse the issuables' routes). */
const snippetAsNoteable = valueGuard('snippetNoteable', (_ctx, req) => snippetNoteable(projectOf(req), projectSnippet.of(req).snippet));

export const snippetsRoutes = (reads: ReadRouting | null): readonly Route[] => [
  { method: 'get', path: '/snippets', guards: [signedIn, snippetListParams], handler: listSnippetsOf((req) => ({ authorId: req.actor!.user.id })) },
  { method: 'get', path: '/snippets/public', guards: [signedIn, snippetListParams], handler: listSnippetsOf(() => ({ personalOnly: true, publicOnly: true })) },
  { method: 'get', path: '/snippets/all', guards: [signedIn, snippetListParams], handler: listSnippetsOf(() => ({})) },
  { method: 'post', path: '/snippets', guards: [signedIn, personalSnippetCreateParams, personalSnippetCreator], handler: addPersonalSnippet },
  { method: 'get', path: '/snippets/:id', guards: [snippetId, readableSnippet], handler: showSnippet(readableSnippet) },
  { method: 'put', path: '/snippets/:id', guards: [signedIn, snippetId, snippetUpdateParams, ownSnippet], handler: editSnippet(ownSnippet) },
  { method: 'delete', path: '/snippets/:id', guards: [signedIn, snippetId, ownSnippet, unmodifiedSince], handler: removeSnippet(ownSnippet) },
  { method: 'get', path: '/snippets/:id/raw', guards: [snippetId, readableSnippet], handler: showRaw(reads, readableSnippet) },
  { method: 'get', path: '/snippets/:id/files/:ref/:file_path/raw', guards: [snippetId, readableSnippet, snippetFileRef], handler: showRawFile(reads, readableSnippet) },
  { method: 'get', path: '/snippets/:id/user_agent_detail', guards: [admin, snippetId, readableSnippet], handler: showSnippetUserAgentDetail(readableSnippet) },

  { method: 'get', path: base, guards: [signedIn, snippetListParams, ...inProject], handler: listSnippetsOf((req) => ({ projectId: req.project!.id })) },
  { method: 'post', path: base, guards: [signedIn, projectSnippetCreateParams, ...inProject, projectSnippetCreator], handler: addProjectSnippet },
  { method: 'get', path: one, guards: readable, handler: showSnippet(projectSnippet) },
  { method: 'put', path: one, guards: [signedIn, projectSnippetId, snippetUpdateParams, ...inProject, projectSnippet, editableSnippet], handler: editSnippet(projectSnippet) },
  { method: 'delete', path: one, guards: [signedIn, ...readable, editableSnippet, unmodifiedSince], handler: removeSnippet(projectSnippet) },
  { method: 'get', path: `${one}/raw`, guards: readable, handler: showRaw(reads, projectSnippet) },
  { method: 'get', path: `${one}/files/:ref/:file_path/raw`, guards: [...readable, snippetFileRef], handler: showRawFile(reads, projectSnippet) },
  { method: 'get', path: `${one}/user_agent_detail`, guards: [admin, ...readable], handler: showSnippetUserAgentDetail(projectSnippet) },
  ...noteableRoutes({ base: one, load: [...readable, snippetAsNoteable], noteable: snippetAsNoteable, resourceEvents: false }),
];
