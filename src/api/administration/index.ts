import { admin, eeRoute, loadProject, signedIn } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { editSettings, settingsParams, showSettings } from './application-settings.js';
import { addMessage, broadcastCreateParams, broadcastEditParams, editMessage, listMessages, messageIdParam, removeMessage, showMessage } from './broadcast-messages.js';
import { showLicenseOfEdition, showStatistics } from './license.js';
import { markdownParams, renderText } from './markdown.js';
import {
  licenseFillParams,
  licenseListParams,
  listLicenses,
  listOtherTemplates,
  listProjectTemplates,
  OTHER_TEMPLATE_TYPES,
  projectTemplateType,
  showLicense,
  showOtherTemplate,
  showProjectTemplate,
} from './templates.js';

/**
 * The site's administration and the shared helpers of GitLab's index (issue 26, item 9).
 * Broadcast messages: anyone reads, even anonymous (GitLab has no authenticate! there); admins
 * write, parameters read first (400), then the admin check (401, 403), as Grape runs them.
 * Settings, statistics and the license: admins. Templates: anyone. Markdown: signed in (GitLab 17's
 * authenticate_markdown_api).
 */
export const administrationRoutes: readonly Route[] = [
  { method: 'get', path: '/broadcast_messages', guards: [paged], handler: listMessages },
  { method: 'get', path: '/broadcast_messages/:id', guards: [messageIdParam], handler: showMessage },
  { method: 'post', path: '/broadcast_messages', guards: [broadcastCreateParams, admin], handler: addMessage },
  { method: 'put', path: '/broadcast_messages/:id', guards: [messageIdParam, broadcastEditParams, admin], handler: editMessage },
  { method: 'delete', path: '/broadcast_messages/:id', guards: [messageIdParam, admin, unmodifiedSince], handler: removeMessage },

  { method: 'get', path: '/application/settings', guards: [admin], handler: showSettings },
  { method: 'put', path: '/application/settings', guards: [admin, settingsParams], handler: editSettings },
  { method: 'get', path: '/application/statistics', guards: [admin], handler: showStatistics },
  { method: 'get', path: '/license', guards: [eeRoute, admin], handler: showLicenseOfEdition },

  { method: 'get', path: '/templates/licenses', guards: [licenseListParams, paged], handler: listLicenses },
  { method: 'get', path: '/templates/licenses/:name', guards: [licenseFillParams], handler: showLicense },
  ...OTHER_TEMPLATE_TYPES.flatMap((type): Route[] => [
    { method: 'get', path: `/templates/${type}`, guards: [paged], handler: listOtherTemplates },
    { method: 'get', path: `/templates/${type}/:name`, guards: [], handler: showOtherTemplate(type) },
  ]),
  { method: 'get', path: '/projects/:id/templates/:type', guards: [projectTemplateType, loadProject(), paged], handler: listProjectTemplates },
  { method: 'get', path: '/projects/:id/templates/:type/:name', guards: [projectTemplateType, licenseFillParams, loadProject()], handler: showProjectTemplate },

  { method: 'post', path: '/markdown', guards: [signedIn, markdownParams], handler: renderText },
];
