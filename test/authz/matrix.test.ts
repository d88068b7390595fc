import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasAuthorizationGuard, PUBLIC_ROUTES, routeIndex, type RouteEntry } from '../../src/api/route-index.js';
import { addMember, createUser, tokenFor, type TestUser } from '../helpers/factories.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';
import { fill, seedWorld, type World } from '../fuzz/world.js';

/**
 * The authorization matrix (issue 20, item 3), generated from the route table: every route, against
 * a private, an internal and a public project and group (and a confidential issue of the public
 * project), for every kind of caller. The expected status comes from the route's guards, in their
 * order, and GitLab's rules for the caller (encoded below, not read from services/permissions.ts):
 * a bad credential 401 first, a read_user token 403 outside the users family, signedIn 401 for
 * anonymous callers, admin 403 for non-admins, a project or group the caller may not see 404, an
 * ability the caller's role lacks 403; a confidential issue 404 to whoever may not read it.
 */

const ACCESS = { none: 0, guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
type Level = (typeof ACCESS)[keyof typeof ACCESS];
type Visibility = 'private' | 'internal' | 'public';

/** GitLab's rule per ability: `visible` passes whoever sees the subject without membership; else `min` and up. */
interface AbilityRule {
  readonly min: Level;
  readonly visible?: true;
}
const v = (min: Level): AbilityRule => ({ min, visible: true });
const at = (min: Level): AbilityRule => ({ min });
const ABILITIES: Record<string, AbilityRule> = {
  // projects (GitLab's ProjectPolicy)
  read_project: v(ACCESS.guest), download_code: v(ACCESS.reporter), fork_project: v(ACCESS.reporter), read_build: v(ACCESS.reporter),
  push_code: at(ACCESS.developer), upload_file: at(ACCESS.guest), admin_project: at(ACCESS.maintainer), admin_project_member: at(ACCESS.maintainer),
  rename_project: at(ACCESS.owner), change_namespace: at(ACCESS.owner), run_housekeeping: at(ACCESS.maintainer), change_visibility_level: at(ACCESS.owner),
  archive_project: at(ACCESS.owner), remove_project: at(ACCESS.owner),
  read_issue: v(ACCESS.guest), create_issue: v(ACCESS.guest), create_note: v(ACCESS.guest), award_emoji: v(ACCESS.guest), admin_issue: at(ACCESS.reporter),
  read_confidential_issues: at(ACCESS.reporter), destroy_issue: at(ACCESS.owner), set_issue_created_at: at(ACCESS.owner), admin_label: at(ACCESS.reporter),
  admin_milestone: at(ACCESS.reporter), admin_note: at(ACCESS.maintainer), set_note_created_at: at(ACCESS.owner),
  read_board: v(ACCESS.guest), admin_board: at(ACCESS.reporter), admin_list: at(ACCESS.reporter), destroy_list: at(ACCESS.owner),
  read_wiki: v(ACCESS.guest), create_wiki: at(ACCESS.developer), admin_wiki: at(ACCESS.maintainer),
  read_merge_request: v(ACCESS.reporter), create_merge_request_from: at(ACCESS.developer), create_merge_request_in: v(ACCESS.reporter),
  update_merge_request: at(ACCESS.developer), admin_merge_request: at(ACCESS.developer), destroy_merge_request: at(ACCESS.owner),
  // groups (GitLab's GroupPolicy; reading a group is for whoever sees it or is a member)
  read_group: v(ACCESS.guest), read_epic: v(ACCESS.guest), create_projects: at(ACCESS.maintainer), create_subgroup: at(ACCESS.owner),
  admin_group_member: at(ACCESS.owner), admin_group: at(ACCESS.owner), remove_group: at(ACCESS.owner), admin_group_label: at(ACCESS.reporter),
  admin_group_milestone: at(ACCESS.reporter), admin_group_board: at(ACCESS.reporter), admin_group_list: at(ACCESS.reporter),
  destroy_group_list: at(ACCESS.owner), admin_epic: at(ACCESS.reporter), destroy_epic: at(ACCESS.owner),
};

type CallerName =
  | 'anonymous' | 'blocked' | 'revoked token' | 'expired token' | 'read_user token' | 'non-member'
  | 'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner' | 'admin' | 'admin via sudo';
interface Caller {
  readonly name: CallerName;
  readonly headers: Record<string, string>;
  /** A credential that fails authentication (401 on every route). */
  readonly bad?: true;
  readonly signedIn: boolean;
  readonly admin: boolean;
  readonly level: Level;
  readonly readUserOnly?: true;
}

/** Routes whose passing cells would take the seeded worlds away: asserted where refused, skipped where allowed. */
const DESTRUCTIVE = new Set([
  'delete /projects/:id', 'delete /groups/:id', 'delete /users/:id', 'post /users/:id/block', 'put /users/:id', 'put /projects/:id/transfer',
  'post /groups/:id/transfer', 'put /groups/:id/transfer', 'post /groups/:id/projects/:project_id', 'post /projects/:id/archive',
  'delete /personal_access_tokens/self', 'delete /personal_access_tokens/:id', 'post /geo_nodes/:id/promote', 'post /geo_nodes/:id/repair',
  'delete /projects/:id/members/:user_id', 'put /projects/:id/members/:user_id', 'delete /groups/:id/members/:user_id', 'put /groups/:id/members/:user_id',
  'put /projects/:id', 'put /groups/:id', 'delete /geo_nodes/:id', 'put /geo_nodes/:id',
]);

interface Expectation {
  /** The status the guards refuse with, or null when every authorization guard lets the caller by. */
  readonly refusal: 401 | 403 | 404 | null;
  /** A guard that reads parameters or loads a resource runs before the refusing one (its 400 or 404 may come first). */
  readonly valueGuardFirst: boolean;
}

/**
 * Rules a handler or a parameter guard applies beyond the authorization guards, as GitLab does: the
 * matrix expects them by name, so that a change shows here.
 */
const HANDLER_RULES: Record<string, (caller: Caller) => 401 | 403 | 404 | null> = {
  // The world's token ids are not the callers' own: another user's token is a 401 to non-admins (README, personal access tokens).
  'get /personal_access_tokens/:id': (caller) => (caller.admin ? null : 401),
  // Without scope=all, /issues lists the caller's own issues: anonymous callers get 401 (GitLab's issues API).
  'get /issues': (caller) => (caller.signedIn ? null : 401),
};

const READ_USER_PATHS = /^\/(users?|events)(\/|$)/;

function visibleTo(caller: Caller, visibility: Visibility): boolean {
  if (caller.admin || caller.level >= ACCESS.guest) return true;
  return visibility === 'public' || (visibility === 'internal' && caller.signedIn);
}

/** What the route's guards answer this caller on a subject of this visibility, by GitLab's rules. */
export function expectation(route: RouteEntry, caller: Caller, visibility: Visibility): Expectation {
  if (caller.bad) return { refusal: 401, valueGuardFirst: false };
  if (caller.readUserOnly && !(route.method === 'get' && READ_USER_PATHS.test(route.path))) return { refusal: 403, valueGuardFirst: false };
  let valueGuardFirst = false;
  for (const name of route.guards) {
    if (name === 'eeRoute' || name === 'epicsAvailable') continue;
    if (name === 'signedIn' && !caller.signedIn) return { refusal: 401, valueGuardFirst };
    if (name === 'admin' && !caller.admin) return { refusal: caller.signedIn ? 403 : 401, valueGuardFirst };
    if (name === 'signedIn' || name === 'admin') continue;
    if (/^load(Project|Group)\(/.test(name)) {
      if (!visibleTo(caller, visibility)) return { refusal: 404, valueGuardFirst };
      continue;
    }
    const ability = /^requireAbility\((\w+)\)$/.exec(name)?.[1];
    if (ability) {
      const rule = ABILITIES[ability];
      if (!rule) throw new Error(`the matrix has no GitLab rule for the ability ${ability} (${route.method} ${route.path}): add it to ABILITIES`);
      const allowed = caller.admin || caller.level >= rule.min || (!!rule.visible && visibleTo(caller, visibility));
      if (!allowed) return { refusal: 403, valueGuardFirst };
      continue;
    }
    valueGuardFirst = true;
  }
  return { refusal: HANDLER_RULES[`${route.method} ${route.path}`]?.(caller) ?? null, valueGuardFirst };
}

let site: TestSite;
const worlds = {} as Record<Visibility, World>;
const callers: Caller[] = [];
let confidentialIid = '';

beforeAll(async () => {
  site = await startSite();
  const users = {} as Record<'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner' | 'nonMember' | 'blocked' | 'admin2', TestUser>;
  for (const name of ['guest', 'reporter', 'developer', 'maintainer', 'owner', 'nonMember', 'blocked'] as const) users[name] = await createUser(site);
  users.admin2 = await createUser(site, { admin: true });
  for (const visibility of ['private', 'internal', 'public'] as const) {
    const world = await seedWorld(site, { visibility, member: users.developer });
    for (const name of ['guest', 'reporter', 'maintainer', 'owner'] as const) await addMember(site, 'groups', world.group.id, users[name], ACCESS[name]);
    await addMember(site, 'groups', world.group.id, users.developer, ACCESS.developer);
    worlds[visibility] = world;
  }
  const confidential = await site.api(`/projects/${worlds.public.project.id}/issues`, { method: 'POST', body: { title: 'Secret', confidential: true } });
  if (confidential.status !== 201) throw new Error(confidential.text);
  confidentialIid = String(confidential.body.iid);
  const blocked = await site.api(`/users/${users.blocked.id}/block`, { method: 'POST' });
  if (blocked.status !== 201) throw new Error(blocked.text);
  const revoked = tokenFor(site, users.nonMember.id, ['api']);
  const self = await site.api('/personal_access_tokens/self', { method: 'DELETE', as: revoked });
  if (self.status !== 204) throw new Error(`revoke: ${self.status} ${self.text}`);
  const expired = tokenFor(site, users.nonMember.id, ['api'], '2020-01-01');
  const readUser = tokenFor(site, users.nonMember.id, ['read_user']);
  const token = (value: string) => ({ 'private-token': value });
  const user = (name: CallerName, t: string, level: Level) => ({ name, headers: token(t), signedIn: true, admin: false, level });
  callers.push(
    { name: 'anonymous', headers: {}, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'blocked', headers: token(users.blocked.token), bad: true, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'revoked token', headers: token(revoked), bad: true, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'expired token', headers: token(expired), bad: true, signedIn: false, admin: false, level: ACCESS.none },
    { ...user('read_user token', readUser, ACCESS.none), readUserOnly: true },
    user('non-member', users.nonMember.token, ACCESS.none),
    user('guest', users.guest.token, ACCESS.guest),
    user('reporter', users.reporter.token, ACCESS.reporter),
    user('developer', users.developer.token, ACCESS.developer),
    user('maintainer', users.maintainer.token, ACCESS.maintainer),
    user('owner', users.owner.token, ACCESS.owner),
    { name: 'admin', headers: token(users.admin2.token), signedIn: true, admin: true, level: ACCESS.owner },
    { name: 'admin via sudo', headers: { ...token(ROOT_TOKEN), sudo: users.admin2.username }, signedIn: true, admin: true, level: ACCESS.owner },
  );
}, 180_000);
afterAll(() => site?.stop());

interface Cell {
  readonly route: RouteEntry;
  readonly caller: Caller;
  readonly visibility: Visibility;
  readonly confidential: boolean;
  readonly url: string;
  readonly expected: Expectation;
}

async function send(cell: Cell): Promise<{ status: number; text: string }> {
  const response = await request(`${site.url}/api/v4${cell.url}`, {
    method: cell.route.method.toUpperCase() as 'GET',
    headers: { ...cell.caller.headers, ...(cell.route.method === 'get' ? {} : { 'content-type': 'application/json' }) },
    body: cell.route.method === 'get' ? undefined : '{}',
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  });
  return { status: response.statusCode, text: (await response.body.text()).slice(0, 200) };
}

/** How the cells were answered: the exact refusal, a value guard's 400 or 404 before it, or let by. */
const tally = { exact: 0, valueGuardFirst: 0, allowed: 0 };

/** The failure of one cell, or null when the answer is what GitLab's rules expect. */
function judge(cell: Cell, status: number, text: string): string | null {
  const { refusal, valueGuardFirst } = cell.expected;
  const tag = `${cell.route.method.toUpperCase()} ${cell.route.path} as ${cell.caller.name} on ${cell.visibility}${cell.confidential ? ' (confidential issue)' : ''}: ${status} ${text}`;
  if (status >= 500) return tag;
  if (refusal !== null) {
    if (status === refusal) {
      tally.exact++;
      return null;
    }
    if (valueGuardFirst && (status === 400 || status === 404)) {
      tally.valueGuardFirst++;
      return null;
    }
    return `${tag} (expected ${refusal})`;
  }
  tally.allowed++;
  if (status === 401) return `${tag} (expected no 401: every guard lets the caller by)`;
  if (/"404 (Project|Group) Not Found"/.test(text)) return `${tag} (expected the subject to be visible)`;
  if (cell.confidential && !cell.caller.admin && cell.caller.level < ACCESS.reporter && status < 300) return `${tag} (expected 404: the caller may not read the confidential issue)`;
  return null;
}

describe('the authorization matrix from the route table', () => {
  it('has no route without an authorization guard but the commented public ones', () => {
    const unguarded = routeIndex().filter((route) => !hasAuthorizationGuard(route) && !(`${route.method} ${route.path}` in PUBLIC_ROUTES));
    expect(unguarded.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('answers every route for every caller and subject as GitLab does', async () => {
    const started = performance.now();
    const cells: Cell[] = [];
    for (const route of routeIndex()) {
      const subjects: { visibility: Visibility; confidential: boolean }[] = route.subject
        ? (['private', 'internal', 'public'] as const).map((visibility) => ({ visibility, confidential: false }))
        : [{ visibility: 'private', confidential: false }];
      if (route.pathParams.includes('issue_iid')) subjects.push({ visibility: 'public', confidential: true });
      for (const { visibility, confidential } of subjects) {
        for (const caller of callers) {
          const expected = expectation(route, caller, visibility);
          const key = `${route.method} ${route.path}`;
          const destructive = DESTRUCTIVE.has(key);
          if (destructive && expected.refusal === null) continue;
          const url = fill(worlds[visibility], route.path, (name) => (confidential && name === 'issue_iid' ? confidentialIid : undefined));
          cells.push({ route, caller, visibility, confidential, url, expected });
        }
      }
    }
    // Refusals and reads change nothing: they run in parallel batches; the writes that pass run one by one, least privileged first.
    const safe = cells.filter((cell) => cell.expected.refusal !== null || cell.route.method === 'get');
    const writes = cells.filter((cell) => !safe.includes(cell));
    const failures: string[] = [];
    const BATCH = 16;
    for (let i = 0; i < safe.length; i += BATCH) {
      const batch = safe.slice(i, i + BATCH);
      const answers = await Promise.all(batch.map(send));
      batch.forEach((cell, j) => {
        const failure = judge(cell, answers[j]!.status, answers[j]!.text);
        if (failure) failures.push(failure);
      });
    }
    for (const cell of writes) {
      const answer = await send(cell);
      const failure = judge(cell, answer.status, answer.text);
      if (failure) failures.push(failure);
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(`authz matrix: ${cells.length} cells asserted (${safe.length} refusals and reads in batches of ${BATCH}, ${writes.length} allowed writes) over ${routeIndex().length} routes and ${callers.length} callers in ${seconds.toFixed(1)} s: ${tally.exact} refused as expected, ${tally.valueGuardFirst} refused first by a parameter guard (400/404), ${tally.allowed} let by; ${failures.length} failed`);
    expect(failures.slice(0, 80), `${failures.length} cells failed`).toEqual([]);
  }, 900_000);
});
