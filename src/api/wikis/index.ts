import { eeRoute, loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { ReadRouting } from '../geo/read-routing.js';
import type { Guard, Route } from '../routes.js';
import { attachmentFile, groupWikis, projectWikis, wikiAttachmentParams, wikiCreateParams, wikiHandlers, wikiListParams, wikiShowParams, wikiUpdateParams } from './wiki-pages.js';

/**
 * Wiki pages (GitLab's lib/api/wikis.rb), backed by the project's wiki repository: reads need
 * read_wiki, writes create_wiki (developers), deleting a page admin_wiki (maintainers); a wiki
 * switched off answers 403 to whoever sees the project. Order as GitLab: 401, 400 for declared
 * parameters, 404 for a project not visible, then 403. `reads` has a secondary whose wiki copy is
 * not current ask the primary.
 *
 * Group wikis (ee, GitLab 17: the same API under /groups/:id): the group's wiki repository, with
 * read_group_wiki, create_group_wiki and admin_group_wiki; ce answers as for an unknown route.
 */
const base = '/projects/:id/wikis';
const reader = [loadProject(), requireAbility('read_wiki')];
const writer = (params: Guard) => [signedIn, params, loadProject(), requireAbility('create_wiki')];

const groupBase = '/groups/:id/wikis';
const groupReader = (params: Guard) => [eeRoute, params, loadGroup(), requireAbility('read_group_wiki')];
const groupWriter = (params: Guard) => [eeRoute, signedIn, params, loadGroup(), requireAbility('create_group_wiki')];

export const wikisRoutes = (reads: ReadRouting | null): readonly Route[] => {
  const project = wikiHandlers(projectWikis, reads);
  const group = wikiHandlers(groupWikis, reads);
  return [
    { method: 'get', path: base, guards: [...reader, wikiListParams], handler: project.listPages },
    { method: 'post', path: base, guards: writer(wikiCreateParams), handler: project.addPage },
    { method: 'post', path: `${base}/attachments`, guards: [...writer(attachmentFile), wikiAttachmentParams], handler: project.addAttachment },
    { method: 'get', path: `${base}/:slug`, guards: reader, handler: project.showPage },
    { method: 'put', path: `${base}/:slug`, guards: writer(wikiUpdateParams), handler: project.editPage },
    { method: 'delete', path: `${base}/:slug`, guards: [signedIn, loadProject(), requireAbility('admin_wiki')], handler: project.removePage },

    { method: 'get', path: groupBase, guards: groupReader(wikiListParams), handler: group.listPages },
    { method: 'post', path: groupBase, guards: groupWriter(wikiCreateParams), handler: group.addPage },
    { method: 'post', path: `${groupBase}/attachments`, guards: [...groupWriter(attachmentFile), wikiAttachmentParams], handler: group.addAttachment },
    { method: 'get', path: `${groupBase}/:slug`, guards: groupReader(wikiShowParams), handler: group.showPage },
    { method: 'put', path: `${groupBase}/:slug`, guards: groupWriter(wikiUpdateParams), handler: group.editPage },
    { method: 'delete', path: `${groupBase}/:slug`, guards: [eeRoute, signedIn, loadGroup(), requireAbility('admin_group_wiki')], handler: group.removePage },
  ];
};
