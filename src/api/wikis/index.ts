import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { ReadRouting } from '../geo/read-routing.js';
import type { Guard, Route } from '../routes.js';
import { addAttachment, addPage, attachmentFile, wikiAttachmentParams, wikiCreateParams, editPage, listPages, wikiListParams, removePage, showPage, wikiUpdateParams } from './wiki-pages.js';

/**
 * Wiki pages (GitLab's lib/api/wikis.rb), backed by the project's wiki repository: reads need
 * read_wiki, writes create_wiki (developers), deleting a page admin_wiki (maintainers); a wiki
 * switched off answers 403 to whoever sees the project. Order as GitLab: 401, 400 for declared
 * parameters, 404 for a project not visible, then 403. `reads` has a secondary whose wiki copy is
 * not current ask the primary.
 */
const base = '/projects/:id/wikis';
const reader = [loadProject(), requireAbility('read_wiki')];
const writer = (params: Guard) => [signedIn, params, loadProject(), requireAbility('create_wiki')];

export const wikisRoutes = (reads: ReadRouting | null): readonly Route[] => [
  { method: 'get', path: base, guards: [...reader, wikiListParams], handler: listPages(reads) },
  { method: 'post', path: base, guards: writer(wikiCreateParams), handler: addPage },
  { method: 'post', path: `${base}/attachments`, guards: [...writer(attachmentFile), wikiAttachmentParams], handler: addAttachment },
  { method: 'get', path: `${base}/:slug`, guards: reader, handler: showPage(reads) },
  { method: 'put', path: `${base}/:slug`, guards: writer(wikiUpdateParams), handler: editPage },
  { method: 'delete', path: `${base}/:slug`, guards: [signedIn, loadProject(), requireAbility('admin_wiki')], handler: removePage },
];
