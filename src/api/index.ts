import { administrationRoutes } from './administration/index.js';
import { ciRoutes } from './ci/index.js';
import type { ReadRouting } from './geo/read-routing.js';
import { groupsRoutes } from './groups/index.js';
import { hooksRoutes } from './hooks/index.js';
import { eventsRoutes } from './issuables/events.js';
import { issuablesRoutes } from './issuables/index.js';
import { todosRoutes } from './issuables/todos.js';
import { membersRoutes } from './members/index.js';
import { mergeRequestsRoutes } from './merge-requests/index.js';
import { planningRoutes } from './planning/index.js';
import { projectsRoutes } from './projects/index.js';
import { commitNoteRoutes, repositoryRoutes } from './repository/index.js';
import { settingsRoutes } from './settings/index.js';
import type { Route } from './routes.js';
import { siteRoutes } from './site/index.js';
import { usersRoutes } from './users/index.js';
import { wikisRoutes } from './wikis/index.js';
import { deployKeysRoutes } from './deploy-keys/index.js';
import { searchRoutes } from './search/index.js';
import { releasesRoutes } from './releases/index.js';
import { snippetsRoutes } from './snippets/index.js';
import { remoteMirrorsRoutes } from './remote-mirrors/index.js';

/**
 * Every route under /api/v4 but the site-to-site Geo API, domain by domain: one table, so that the
 * server mounts it once and tests and docs can read it. `geoNodeRoutes` and `reads` come from the
 * site's Geo runtime (api/geo/index.ts).
 */
export function apiRoutes(revision: string, geoNodeRoutes: readonly Route[], reads: ReadRouting | null): readonly Route[] {
  return [
    ...siteRoutes(revision),
    ...usersRoutes,
    ...projectsRoutes(reads),
    ...groupsRoutes,
    ...membersRoutes,
    ...geoNodeRoutes,
    ...hooksRoutes,
    ...remoteMirrorsRoutes,
    ...repositoryRoutes(reads),
    ...commitNoteRoutes,
    ...ciRoutes(reads),
    ...issuablesRoutes,
    ...eventsRoutes,
    ...todosRoutes,
    ...mergeRequestsRoutes,
    ...planningRoutes,
    ...settingsRoutes,
    ...wikisRoutes(reads),
    ...deployKeysRoutes,
    ...searchRoutes(reads),
    ...releasesRoutes(reads),
    ...snippetsRoutes(reads),
    ...administrationRoutes,
  ];
}
