import { signedIn } from '../middleware/guards.js';
import type { Route } from '../routes.js';
import { showVersion } from './version.js';

export { probesRouter } from './probes.js';

/**
 * The site itself under /api/v4: GET /version for any signed-in user (GITLAB-NOTES 5), and GitLab
 * 15.2's GET /metadata, the same answer under the name modern clients ask. Probes live outside /api/v4.
 */
export function siteRoutes(revision: string): readonly Route[] {
  return [
    { method: 'get', path: '/version', guards: [signedIn], handler: showVersion(revision) },
    { method: 'get', path: '/metadata', guards: [signedIn], handler: showVersion(revision) },
  ];
}
