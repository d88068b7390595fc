import { geoNodeRoutes } from './geo/nodes.js';
import { apiRoutes } from './index.js';
import type { Method, Route } from './routes.js';

/**
 * The API route table read as data (issue 20): every route with its method, path, guard names and
 * what they mean (sign-in, admin, edition, the subject loaded, the abilities asked) and its
 * parameters, for the generated route index of docs/routes.md, the authorization matrix and the fuzzer.
 */
export interface RouteEntry {
  readonly method: Method;
  readonly path: string;
  /** Every guard's name, in the order the route runs them. */
  readonly guards: readonly string[];
  /** `:name` segments of the path. */
  readonly pathParams: readonly string[];
  /**
   * Body or query parameters the route reads, as its guards declare them (paramsGuard schemas,
   * uploadedFile, avatarFile); `private_token`, `access_token` and `sudo`, read for every request
   * before the route, are not listed. test/integration/route-params.test.ts fails on a route that
   * reads one it does not declare.
   */
  readonly params: readonly string[];
  /** 401 for anonymous callers (signedIn or admin). */
  readonly signIn: boolean;
  /** 403 for signed-in callers who are not admins. */
  readonly admin: boolean;
  /** `ee` when the route exists in that edition only (eeRoute: 404 in ce; epicsAvailable: 403 in ce). */
  readonly edition: 'ee' | null;
  /** The subject a loadProject or loadGroup guard loads (404 when invisible to the caller). */
  readonly subject: 'project' | 'group' | null;
  /** The abilities requireAbility guards ask, in order (403 when refused). */
  readonly abilities: readonly string[];
}

const EDITION_GUARDS = new Set(['eeRoute', 'epicsAvailable']);

/** One route as an entry of the index. */
export function routeEntry(route: Route): RouteEntry {
  const guards = route.guards.map((guard) => guard.name);
  const abilities = guards.flatMap((name) => /^requireAbility\((\w+)\)$/.exec(name)?.slice(1) ?? []);
  const subject = guards.some((name) => name.startsWith('loadProject(')) ? 'project' : guards.some((name) => name.startsWith('loadGroup(')) ? 'group' : null;
  return {
    method: route.method,
    path: route.path,
    guards,
    pathParams: [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]!),
    params: [...new Set(route.guards.flatMap((guard) => guard.params ?? []))],
    signIn: guards.includes('signedIn') || guards.includes('admin'),
    admin: guards.includes('admin'),
    edition: guards.some((name) => EDITION_GUARDS.has(name)) ? 'ee' : null,
    subject,
    abilities,
  };
}

/** Status sources for building the geo_nodes routes as data: their handlers never run from the index. */
const NO_STATUS = { currentStatus: () => null, storedStatus: () => null };

/** Every route under /api/v4 the server mounts, geo_nodes included, as the index reads it. */
export function routeIndex(): readonly RouteEntry[] {
  return apiRoutes('index', geoNodeRoutes(NO_STATUS, null), null).map(routeEntry);
}

/**
 * The routes that take anonymous callers with no authorization guard (signedIn, admin, loadProject,
 * loadGroup or requireAbility) on the route; each says why it is public (as in GitLab). A route
 * added without such a guard and not listed here fails test/unit/route-index.test.ts.
 */
export const PUBLIC_ROUTES: Readonly<Record<string, string>> = {
  // GitLab lists users to anyone; its handler asks anonymous callers for `username` (users.rb).
  'get /users': 'public user list (anonymous callers must pass username)',
  // A user's public profile (users.rb `get ":id"` has no authenticate!).
  'get /users/:id': 'public user profile',
  // Projects visible to the caller: public ones for anonymous callers.
  'get /projects': 'projects visible to the caller',
  'get /users/:user_id/projects': 'projects of a user visible to the caller',
  // Groups visible to the caller: public ones for anonymous callers.
  'get /groups': 'groups visible to the caller',
  // myIssueListParams answers 401 to anonymous callers unless scope=all (issues.rb).
  'get /issues': 'issues visible to the caller; sign-in unless scope=all',
  // A user's events the caller may see (events.rb has no authenticate! on it).
  'get /users/:id/events': 'events of a user visible to the caller',
  // GitLab 11's user status endpoint is public.
  'get /users/:user_id/status': 'public user status',
  // Project topics are public (topics.rb: no authenticate! on its reads).
  'get /topics': 'project topics, public',
  'get /topics/:id': 'a project topic, public',
  // snippets.rb reads a snippet with SnippetsFinder for the caller: public ones to anonymous callers.
  'get /snippets/:id': 'a snippet visible to the caller',
  'get /snippets/:id/raw': 'a snippet visible to the caller',
  'get /snippets/:id/files/:ref/:file_path/raw': 'a snippet visible to the caller',
  // broadcast_messages.rb has no authenticate! on its reads: every page shows the banners.
  'get /broadcast_messages': 'broadcast messages, read by anyone',
  'get /broadcast_messages/:id': 'a broadcast message, read by anyone',
  // templates.rb has no authenticate!: templates are public texts.
  'get /templates/licenses': 'license templates',
  'get /templates/licenses/:name': 'a license template',
  'get /templates/gitignores': 'gitignore templates (none)',
  'get /templates/gitignores/:name': 'a gitignore template (none)',
  'get /templates/dockerfiles': 'Dockerfile templates (none)',
  'get /templates/dockerfiles/:name': 'a Dockerfile template (none)',
  'get /templates/gitlab_ci_ymls': '.gitlab-ci.yml templates (none)',
  'get /templates/gitlab_ci_ymls/:name': 'a .gitlab-ci.yml template (none)',
};

const AUTHORIZING = /^(signedIn|admin|loadProject\(|loadGroup\(|requireAbility\()/;

/** Whether a route runs a guard that authenticates or authorizes the caller. */
export function hasAuthorizationGuard(entry: RouteEntry): boolean {
  return entry.guards.some((name) => AUTHORIZING.test(name));
}

/** The document that holds the generated route index, relative to the project root. */
export const ROUTE_INDEX_DOC = 'docs/routes.md';
export const ROUTE_INDEX_START = '<!-- route-index:start (generated by `npm run routes:doc` from src/api/route-index.ts; do not edit) -->';
export const ROUTE_INDEX_END = '<!-- route-index:end -->';

/** The route index of ROUTE_INDEX_DOC: one table row per route, in table order. */
export function renderRouteIndex(entries: readonly RouteEntry[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = entries.map(
    (entry) => `| ${entry.method.toUpperCase()} | \`${cell(entry.path)}\` | ${cell(entry.guards.join(', ') || '(public)')} | ${cell(entry.params.join(', '))} |`,
  );
  const withParams = entries.filter((entry) => entry.params.length > 0).length;
  return [
    `${entries.length} routes under \`/api/v4\` (the site-to-site Geo API aside), with the guards each runs in order and the body or query`,
    `parameters it reads (${withParams} routes take some; \`private_token\`, \`access_token\` and \`sudo\` apply to every route).`,
    '',
    '| Method | Path | Guards | Parameters |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The document with the text between the route index markers replaced; throws when the markers are missing. */
export function withRouteIndex(doc: string, index: string): string {
  const start = doc.indexOf(ROUTE_INDEX_START);
  const end = doc.indexOf(ROUTE_INDEX_END);
  if (start < 0 || end < start) throw new Error(`${ROUTE_INDEX_DOC} has no route index markers`);
  return `${doc.slice(0, start + ROUTE_INDEX_START.length)}\n${index}\n${doc.slice(end)}`;
}
