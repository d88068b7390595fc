import sshpk from 'sshpk';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasAuthorizationGuard, PUBLIC_ROUTES, routeIndex, type RouteEntry } from '../../src/api/route-index.js';
import { addMember, createGroup, createUser, tokenFor, type TestUser } from '../helpers/factories.js';
import { gpgKeyPair, sshPublicKey } from '../helpers/keys.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';
import { fill, seedWorld, type World } from '../fuzz/world.js';

/**
 * The authorization matrix (issue 20, item 3), generated from the route table: every route, against
 * a private, an internal and a public project and group (and a confidential issue of the public
 * project), for every kind of caller. The expected status comes from the route's guards, in their
 * order, and GitLab's rules for the caller (encoded below, not read from services/permissions.ts):
 * a bad credential 401 first, a read_user token 403 outside the users family, signedIn 401 for
 * anonymous callers, admin 403 for non-admins, a project or group the caller may not see 404, an
 * ability the caller's role lacks 403; a confidential issue 404 to whoever may not read it; the
 * rules a handler applies beyond the guards (HANDLER_RULES). A cell every rule lets by is asserted
 * exactly too: a read answers 200 (or the status GitLab answers that route), a write sent with a
 * minimal valid body (BODIES) its success status, a write without one its success or GitLab's 400
 * for a missing parameter; anything else is a named status (NAMED, ONCE, TOGGLE) with GitLab's reason. The cells that take
 * the worlds away run last (FINAL). Every cell is sent.
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
  read_project: v(ACCESS.guest), download_code: v(ACCESS.reporter), fork_project: v(ACCESS.reporter),
  // read_build: reporters, and with public_builds (GitLab's default, the worlds' projects keep it) whoever reads the project, guests included.
  read_build: v(ACCESS.guest),
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
  // GitLab 17's releases: whoever reads the project lists them; developers write them.
  read_release: v(ACCESS.guest), create_release: at(ACCESS.developer),
  // ee approval rules: authorize_read_project_approval_rule! (manage_merge_request_settings or create_merge_request_in).
  read_approval_rules: v(ACCESS.reporter),
  // remote_mirrors.rb: admin_remote_mirror, maintainers (refused with unauthorized!, 401: unauthorizedUnless).
  admin_remote_mirror: at(ACCESS.maintainer),
  // groups (GitLab's GroupPolicy; reading a group is for whoever sees it or is a member)
  read_group: v(ACCESS.guest), read_epic: v(ACCESS.guest), create_projects: at(ACCESS.maintainer), create_subgroup: at(ACCESS.owner),
  admin_group_member: at(ACCESS.owner), admin_group: at(ACCESS.owner), remove_group: at(ACCESS.owner), admin_group_label: at(ACCESS.reporter),
  admin_group_milestone: at(ACCESS.reporter), admin_group_board: at(ACCESS.reporter), admin_group_list: at(ACCESS.reporter),
  destroy_group_list: at(ACCESS.owner), admin_epic: at(ACCESS.reporter), destroy_epic: at(ACCESS.owner),
  // ee group wikis (EE::GroupPolicy): read_wiki for whoever sees the group without membership and guests; create_wiki developers; admin_wiki maintainers.
  read_group_wiki: v(ACCESS.guest), create_group_wiki: at(ACCESS.developer), admin_group_wiki: at(ACCESS.maintainer),
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
  /** The user behind the credential (admin and admin via sudo are the same user). */
  readonly userId?: number;
  /** The caller's own keys and emails, for the /user/... routes. */
  readonly own?: Record<string, string>;
}

/**
 * Routes whose passing cells take the seeded worlds away: their allowed cells run last, in this order, after every other
 * cell (the member leaves or is removed, the projects are archived and deleted, the groups deleted, the member blocked and
 * deleted, and each caller revokes its own token last of all).
 */
const FINAL = [
  'delete /projects/:id/members/:user_id', 'delete /groups/:id/members/:user_id', 'post /projects/:id/archive',
  'post /groups/:id/projects/:project_id', 'post /groups/:id/transfer', 'put /groups/:id/transfer',
  'delete /projects/:id', 'delete /groups/:id', 'post /users/:id/block', 'delete /users/:id', 'delete /personal_access_tokens/self',
];

interface Expectation {
  /** The status the guards refuse with, or null when every authorization guard lets the caller by. */
  readonly refusal: 400 | 401 | 403 | 404 | null;
  /** A guard that reads parameters or loads a resource runs before the refusing one (its 400 or 404 may come first). */
  readonly valueGuardFirst: boolean;
}

/** The cell as the rules see it: who calls, on which subject, the confidential issue or not. */
interface Subject {
  readonly visibility: Visibility;
  readonly confidential: boolean;
}

const isAdmin = (caller: Caller) => caller.admin;
/** GitLab's update_issue: reporters and up, the author and assignees (no caller here is either). */
const updatesIssues = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.reporter;
/** GitLab's read_confidential_issues: reporters and up (and the author and assignees, none of the callers). */
const readsConfidential = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.reporter;
/** GitLab's NotePolicy admin_note: the note's author (root seeded every note) or a maintainer of the project or group. */
const adminsNotes = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.maintainer;
/** Pushing and merging into the worlds' master, protected by default (GitLab's default branch protection: maintainers). */
const mergesToMaster = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.maintainer;
/** GitLab's update_merge_request / resolve_note on a merge request: developers and up, and its author (root). */
const updatesMergeRequests = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.developer;

/** GitLab's read/create/destroy_resource_access_tokens: maintainers of a project, owners of a group. */
const managesProjectTokens = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.maintainer;
const managesGroupTokens = (caller: Caller) => isAdmin(caller) || caller.level >= ACCESS.owner;

/**
 * Rules a handler or a parameter guard applies beyond the authorization guards, as GitLab does: the
 * matrix expects them by name, so that a change shows here. Keyed by `method path` or by a pattern.
 */
const HANDLER_RULES: Record<string, (caller: Caller, subject: Subject) => 400 | 401 | 403 | 404 | null> = {
  // Members::RequestAccessService: the worlds' groups and projects keep request_access_enabled off, so nobody may ask (403).
  'post /groups/:id/access_requests': () => 403,
  'post /projects/:id/access_requests': () => 403,
  // The world's token ids are not the callers' own: another user's token is a 401 to non-admins (README, personal access tokens).
  'get /personal_access_tokens/:id': (caller) => (caller.admin ? null : 401),
  // personal_access_tokens.rb: RevokeService refuses another user's token to a non-admin, and the API answers bad_request! (400).
  'delete /personal_access_tokens/:id': (caller) => (caller.admin ? null : 400),
  // Without scope=all, /issues lists the caller's own issues: anonymous callers get 401 (GitLab's issues API).
  'get /issues': (caller) => (caller.signedIn ? null : 401),
  // users.rb: without a username, anonymous callers may not list users ("403 Forbidden - Not authorized to access /api/v4/users").
  'get /users': (caller) => (caller.signedIn ? null : 403),
  // merge_requests.rb merge: "unauthorized! unless merge_request.can_be_merged_by?(current_user)": the worlds' master is protected
  // by default (maintainers push and merge), so developers may not merge into it.
  'put /projects/:id/merge_requests/:merge_request_iid/merge': (caller) => (mergesToMaster(caller) ? null : 401),
  // merge_requests.rb cancel: "unauthorized! unless merge_request.can_cancel_merge_when_pipeline_succeeds?(current_user)",
  // which is can_be_merged_by? || author (root wrote the merge request).
  'put /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds': (caller) => (mergesToMaster(caller) ? null : 401),
  'post /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds': (caller) => (mergesToMaster(caller) ? null : 401),
  // merge_requests.rb rebase: authorize_push_to_merge_request! ("403 Forbidden - Cannot push to source branch"; topic is unprotected).
  'put /projects/:id/merge_requests/:merge_request_iid/rebase': (caller) => (updatesMergeRequests(caller) ? null : 403),
  'post /projects/:id/merge_requests/:merge_request_iid/rebase': (caller) => (updatesMergeRequests(caller) ? null : 403),
  // ee merge_request_approvals: "unauthorized! unless merge_request.can_approve?(current_user)" (developers and up who have not
  // approved yet, never the author); "not_found! unless merge_request.has_approved?(current_user)" on unapprove.
  'post /projects/:id/merge_requests/:merge_request_iid/approve': (caller) => (updatesMergeRequests(caller) ? null : 401),
  'post /projects/:id/merge_requests/:merge_request_iid/unapprove': (caller) => (updatesMergeRequests(caller) ? null : 404),
  // GitLab 10.x's Gitlab::Checks (the tag check run by Tags::DestroyService): changing an existing tag needs admin_project
  // ("You are not allowed to change existing tags on this project."); newer GitLab moved it to admin_tag (developers).
  'delete /projects/:id/repository/tags/:tag_name': (caller) => (isAdmin(caller) || caller.level >= ACCESS.maintainer ? null : 403),
  // members.rb delete: Members::DestroyService asks destroy_project_member / destroy_group_member: whoever administers the
  // members (maintainers of a project, owners of a group), or the member leaving (the world's member is the developer).
  'delete /projects/:id/members/:user_id': (caller) => (isAdmin(caller) || caller.level >= ACCESS.maintainer || caller.name === 'developer' ? null : 403),
  'delete /groups/:id/members/:user_id': (caller) => (isAdmin(caller) || caller.level >= ACCESS.owner || caller.name === 'developer' ? null : 403),
  // ee merge_request_approvals.rb reset_approvals: "unauthorized! unless current_user.bot? && ..." (no caller is a token's bot).
  'put /projects/:id/merge_requests/:merge_request_iid/reset_approvals': () => 401,
  // resource_access_tokens.rb: reads and rotation answer unauthorized! to whoever may not manage the tokens (project
  // maintainers, group owners); create and revoke answer the service's error with bad_request!.
  'get /projects/:id/access_tokens': (caller) => (managesProjectTokens(caller) ? null : 401),
  'get /projects/:id/access_tokens/:token_id': (caller) => (managesProjectTokens(caller) ? null : 401),
  'post /projects/:id/access_tokens/:token_id/rotate': (caller) => (managesProjectTokens(caller) ? null : 401),
  'post /projects/:id/access_tokens': (caller) => (managesProjectTokens(caller) ? null : 400),
  'delete /projects/:id/access_tokens/:token_id': (caller) => (managesProjectTokens(caller) ? null : 400),
  'get /groups/:id/access_tokens': (caller) => (managesGroupTokens(caller) ? null : 401),
  'get /groups/:id/access_tokens/:token_id': (caller) => (managesGroupTokens(caller) ? null : 401),
  'post /groups/:id/access_tokens/:token_id/rotate': (caller) => (managesGroupTokens(caller) ? null : 401),
  'post /groups/:id/access_tokens': (caller) => (managesGroupTokens(caller) ? null : 400),
  'delete /groups/:id/access_tokens/:token_id': (caller) => (managesGroupTokens(caller) ? null : 400),
  // personal_access_tokens.rb rotate: not_found! for another user's token (the world's token is not the callers').
  'post /personal_access_tokens/:id/rotate': (caller) => (caller.admin ? null : 404),
  // issue_links.rb delete: IssueLinks::DestroyService asks admin_issue_link on both issues (members from guest up), else
  // 404 'No Issue Link found'; readers who are no members may not unlink.
  'delete /projects/:id/issues/:issue_iid/links/:issue_link_id': (caller) => (caller.admin || caller.level >= ACCESS.guest ? null : 404),
  // namespaces.rb: a group namespace is found only by whoever may read the group (find_namespace answers 404 otherwise).
  'get /namespaces/:id': (caller, subject) => (caller.admin || caller.level >= ACCESS.guest || subject.visibility !== 'private' ? null : 404),
};

/** Rules by pattern, after HANDLER_RULES: notes, awards and discussions on issuables (notes.rb, award_emoji.rb, discussions.rb). */
const HANDLER_PATTERNS: [RegExp, (caller: Caller, subject: Subject) => 400 | 401 | 403 | 404 | null][] = [
  // notes_helpers.rb update_note / delete_note: authorize! :admin_note, note.
  [/^(put|delete) .*\/notes\/:note_id$/, (caller) => (adminsNotes(caller) ? null : 403)],
  // award_emoji.rb delete: "unauthorized! unless award.user == current_user || current_user.admin?" (root seeded every award).
  [/^delete .*\/award_emoji\/:award_id$/, (caller) => (caller.admin ? null : 401)],
  // discussions.rb resolve: authorize! :resolve_note on the merge request (developers and up, its author).
  [/^put \/projects\/:id\/merge_requests\/:merge_request_iid\/discussions\/:discussion_id$/, (caller) => (updatesMergeRequests(caller) ? null : 403)],
];

/** Guards that find a resource and apply GitLab's per-resource rule, by name: the refusal they answer the caller, or null. */
const RESOURCE_GUARDS: Record<string, (caller: Caller, subject: Subject) => 403 | 404 | null> = {
  readableIssue: (caller, subject) => (subject.confidential && !readsConfidential(caller) ? 404 : null),
  namedIssue: (caller, subject) => (subject.confidential && !readsConfidential(caller) ? 404 : null),
  // issues.rb update: authorize! :update_issue (a confidential issue is first not found to whoever may not read it).
  editableIssue: (caller, subject) => (subject.confidential && !readsConfidential(caller) ? 404 : updatesIssues(caller) ? null : 403),
  // merge_requests.rb update: authorize! :update_merge_request.
  editableMergeRequest: (caller) => (updatesMergeRequests(caller) ? null : 403),
  // project_snippets.rb: the world's snippets have the project's visibility, so whoever sees the project reads them; root wrote
  // them, so update_snippet / admin_snippet is a maintainer's (ProjectSnippetPolicy); create_snippet is a reporter's.
  editableSnippet: (caller) => (caller.admin || caller.level >= ACCESS.maintainer ? null : 403),
  projectSnippetCreator: (caller) => (caller.admin || caller.level >= ACCESS.reporter ? null : 403),
  // snippets.rb: /snippets/:id finds the world's personal snippet (root's, of the subject's visibility) for whoever may read
  // it; PUT and DELETE find the caller's own snippets only (snippets_for_current_user), and no caller is root.
  readableSnippet: (caller, subject) => (caller.admin || visibleWithoutMembership(caller, subject.visibility) ? null : 404),
  ownSnippet: () => 404,
};

const READ_USER_PATHS = /^\/(users?|events)(\/|$)/;

function visibleTo(caller: Caller, visibility: Visibility): boolean {
  if (caller.admin || caller.level >= ACCESS.guest) return true;
  return visibleWithoutMembership(caller, visibility);
}

/** GitLab's public and internal access: what a caller may do on a subject it sees without being a member. */
function visibleWithoutMembership(caller: Caller, visibility: Visibility): boolean {
  return visibility === 'public' || (visibility === 'internal' && caller.signedIn);
}

/** What the route's guards answer this caller on a subject of this visibility, by GitLab's rules. */
export function expectation(route: RouteEntry, caller: Caller, subject: Subject): Expectation {
  const { visibility } = subject;
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
      const allowed = caller.admin || caller.level >= rule.min || (!!rule.visible && visibleWithoutMembership(caller, visibility));
      if (!allowed) return { refusal: 403, valueGuardFirst };
      continue;
    }
    // GitLab's `unauthorized! unless can?(...)` in a before block: the ability's rule, refused with 401.
    const unauthorizedAbility = /^unauthorizedUnless\((\w+)\)$/.exec(name)?.[1];
    if (unauthorizedAbility) {
      const rule = ABILITIES[unauthorizedAbility];
      if (!rule) throw new Error(`the matrix has no GitLab rule for the ability ${unauthorizedAbility} (${route.method} ${route.path}): add it to ABILITIES`);
      if (!(caller.admin || caller.level >= rule.min || (!!rule.visible && visibleWithoutMembership(caller, visibility)))) return { refusal: 401, valueGuardFirst };
      continue;
    }
    const resource = RESOURCE_GUARDS[name]?.(caller, subject);
    if (resource) return { refusal: resource, valueGuardFirst };
    valueGuardFirst = true;
  }
  const key = `${route.method} ${route.path}`;
  const rule = HANDLER_RULES[key] ?? HANDLER_PATTERNS.find(([pattern]) => pattern.test(key))?.[1];
  return { refusal: rule?.(caller, subject) ?? null, valueGuardFirst };
}

/** GitLab's success status per method (Grape: 201 on POST, 200 on GET and PUT; destroy_conditionally! 204). */
const METHOD_SUCCESS = { get: 200, post: 201, put: 200, delete: 204, patch: 200 } as const;

/** Routes whose success is another status in GitLab, with its reason. */
const SUCCESS: Record<string, number> = {
  // todos.rb: mark all as done answers no_content!.
  'post /todos/mark_as_done': 204,
  // gpg_keys revoke (users.rb): status :accepted.
  'post /user/gpg_keys/:key_id/revoke': 202,
  'post /users/:id/gpg_keys/:key_id/revoke': 202,
  // branches.rb delete merged_branches: status :accepted (a background job).
  'delete /projects/:id/repository/merged_branches': 202,
  // projects.rb and groups.rb delete: the removal runs in the background, accepted! (202).
  'delete /projects/:id': 202,
  'delete /groups/:id': 202,
  // merge_requests.rb rebase: status :accepted (rebase_async).
  'put /projects/:id/merge_requests/:merge_request_iid/rebase': 202,
  'post /projects/:id/merge_requests/:merge_request_iid/rebase': 202,
  // unblock (users.rb) answers the boolean result with Grape's POST 201.
  // labels.rb promote (put) and milestones promote: status(200).
  'put /projects/:id/labels/:name/promote': 200,
  'put /projects/:id/labels/promote': 200,
  // issue_links.rb delete: present the removed link (200).
  'delete /projects/:id/issues/:issue_iid/links/:issue_link_id': 200,
  // ee epic_issues.rb delete: present the removed link (200).
  'delete /groups/:id/-/epics/:epic_iid/issues/:epic_issue_id': 200,
  'delete /groups/:id/epics/:epic_iid/issues/:epic_issue_id': 200,
  'post /projects/:id/milestones/:milestone_id/promote': 200,
  // releases.rb and release/links.rb delete: present the deleted release or link (200).
  'delete /projects/:id/releases/:tag_name': 200,
  'delete /projects/:id/releases/:tag_name/assets/links/:link_id': 200,
  // releases.rb permalink/latest: redirect to the latest release (302).
  'get /projects/:id/releases/permalink/latest': 302,
  // personal_access_tokens.rb and resource_access_tokens.rb rotate: status :ok.
  'post /personal_access_tokens/:id/rotate': 200,
  'post /projects/:id/access_tokens/:token_id/rotate': 200,
  'post /groups/:id/access_tokens/:token_id/rotate': 200,
  // time_tracking_endpoints.rb: time_estimate, reset_time_estimate and reset_spent_time answer 200; add_spent_time 201.
  'post /projects/:id/issues/:issue_iid/time_estimate': 200,
  'post /projects/:id/issues/:issue_iid/reset_time_estimate': 200,
  'post /projects/:id/issues/:issue_iid/reset_spent_time': 200,
  'post /projects/:id/merge_requests/:merge_request_iid/time_estimate': 200,
  'post /projects/:id/merge_requests/:merge_request_iid/reset_time_estimate': 200,
  'post /projects/:id/merge_requests/:merge_request_iid/reset_spent_time': 200,
};

/** Allowed cells GitLab answers with a status other than success, each with its reason (the matrix's worlds cannot reach success there). */
const NAMED: Record<string, { status: number; reason: string }> = {
  'get /geo_nodes/current/failures': { status: 403, reason: "geo_nodes.rb: 'Failures can only be requested from a secondary node' (the matrix runs on a primary)" },
  // The matrix's one site is a primary whose only node (id 1, what :id is filled with) is itself: these Geo operations
  // refuse it in geoforge's words (README, Geo nodes), so the cells are sent and change nothing.
  'post /geo_nodes/:id/promote': { status: 400, reason: "README: promote runs on the secondary it names; 'This node is the primary already'" },
  'post /geo_nodes/:id/repair': { status: 400, reason: "README: repair re-bootstraps a secondary; 'The primary node cannot be re-synced'" },
  'delete /geo_nodes/:id': { status: 400, reason: "'The primary node cannot be removed' (the site would lose its own record)" },
  'get /projects/:id/repository/commits/:sha/signature': { status: 404, reason: "commits.rb: not_found! 'Signature' for an unsigned commit (the world's commits are unsigned)" },
  'get /projects/:id/jobs/:job_id/artifacts': { status: 404, reason: 'jobs.rb: present_carrierwave_file! answers 404 while the job has no artifacts (the reads run before a write uploads one)' },
  'post /groups/:id/ldap_sync': { status: 404, reason: 'ee ldap_group_sync: 404 without an LDAP server configured' },
  'delete /groups/:id/ldap_group_links/:cn': { status: 404, reason: 'ee ldap_group_links: no such link' },
  'delete /groups/:id/ldap_group_links/:provider/:cn': { status: 404, reason: 'ee ldap_group_links: no such link' },
  'put /groups/:id/access_requests/:user_id/approve': { status: 404, reason: "access_requests.rb: requesters.find_by! answers '404 Not found' (the world's member is a member, with no pending request)" },
  'put /projects/:id/access_requests/:user_id/approve': { status: 404, reason: "access_requests.rb: requesters.find_by!, as above" },
  'delete /groups/:id/access_requests/:user_id': { status: 404, reason: "access_requests.rb: requesters.find_by!, as above" },
  'delete /projects/:id/access_requests/:user_id': { status: 404, reason: "access_requests.rb: requesters.find_by!, as above" },
  'get /templates/gitignores/:name': { status: 404, reason: "templates.rb: not_found!('gitignore'): no package in node_modules ships gitignore templates" },
  'get /templates/dockerfiles/:name': { status: 404, reason: "templates.rb: not_found!('dockerfile'), as above" },
  'get /templates/gitlab_ci_ymls/:name': { status: 404, reason: "templates.rb: not_found!('gitlab_ci_yml'), as above" },
  'put /projects/:id/merge_requests/:merge_request_iid/merge': { status: 409, reason: "merge_requests.rb: 'SHA does not match HEAD of source branch' (the body's sha is stale on purpose, so the world's merge request stays open)" },
  'put /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds': { status: 406, reason: "GitLab 10.x's API docs and the SPEC: 406 when the merge request is not set to merge when the pipeline succeeds" },
  'post /projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds': { status: 406, reason: 'SPEC: 406, as above' },
  'put /projects/:id/merge_requests/:merge_request_iid/rebase': { status: 409, reason: "merge_requests.rb: RebaseLockTimeout's 409 while an earlier cell's rebase still runs" },
  'post /projects/:id/merge_requests/:merge_request_iid/rebase': { status: 409, reason: "merge_requests.rb: RebaseLockTimeout's 409, as above" },
  'post /groups/:id/projects/:project_id': { status: 400, reason: "groups.rb transfer: Projects::TransferService's 'Failed to transfer project ... Project is already in this namespace.' (the world's project is in that group)" },
  'post /groups/:id/transfer': { status: 400, reason: "groups.rb transfer without group_id: Groups::TransferService's 'Transfer failed: Group is already a root group.'" },
  'put /groups/:id/transfer': { status: 400, reason: 'the same, by PUT' },
  'post /projects/:id/remote_mirrors/:mirror_id/sync': { status: 400, reason: "RemoteMirrors::SyncService: 'Cannot proceed with the push mirroring' for the world's mirror, disabled (GitLab's default)" },
  'post /projects/:id/housekeeping': { status: 409, reason: "housekeeping's exclusive lease, held until the git gc an earlier cell started ends: 'Somebody already triggered housekeeping for this project in the past 5 minutes'" },
};

/** Writes the first allowed cell changes for good: later cells on the same URL (by the same user where `perUser`) answer this status, with GitLab's reason. */
const ONCE: [RegExp, number, string][] = [
  // Deleting a file writes on a new branch each time (BODIES); merged_branches and impersonation and personal access
  // token revocation repeat (202, 204: the token is still found, and revoking it again succeeds).
  [/^delete (?!.*\/repository\/(files\/:file_path|merged_branches)$)(?!.*impersonation_tokens)(?!\/personal_access_tokens\/)/, 404, 'deleted by an earlier cell'],
  // users.rb gpg_keys revoke: GpgKey#revoke destroys the key (the DELETE of a revoked key is a 404 too).
  [/\/gpg_keys\/:key_id\/revoke$/, 404, 'revoked (destroyed) by an earlier cell'],
  // ee epic_issues.rb: "Issue(s) already assigned" once the issue is in the epic.
  [/^post \/groups\/:id\/(-\/)?epics\/:epic_iid\/issues\/:issue_id$/, 409, "ee epic_issues: 'Issue(s) already assigned' by an earlier cell"],
  [/^(put|post) \/projects\/:id\/labels(\/:name)?\/promote$/, 404, 'the label was promoted to the group by an earlier cell'],
  // merge_requests.rb create: 409 "Cannot Create: This merge request already exists" for a second open one on the same branches.
  [/^post \/projects\/:id\/merge_requests$/, 409, 'an earlier cell opened the merge request from that branch'],
  // projects.rb share: 409 'Group already shared with this group'; groups.rb share: 409 'Shared with group has already been taken'.
  [/^post \/(projects|groups)\/:id\/share$/, 409, 'an earlier cell shared the project (group) with that group'],
  // users.rb ban and unban: Users::BanService / UnbanService, 403 'You cannot ban banned users.' ('unban active users.').
  [/^post \/users\/:id\/(ban|unban)$/, 403, 'an earlier cell banned (unbanned) the member'],
  // commits.rb: Commits::CherryPickService / RevertService fail once the change is on the branch:
  // 400 'Sorry, we cannot cherry-pick (revert) this commit automatically. This commit may already have been cherry-picked (reverted), ...'
  [/^post \/projects\/:id\/repository\/commits\/:sha\/(cherry_pick|revert)$/, 400, 'an earlier cell already picked (reverted) the commit onto that branch'],
  [/^post \/projects\/:id\/milestones\/:milestone_id\/promote$/, 404, 'the milestone was promoted to the group by an earlier cell'],
  [/^post \/projects\/:id\/repository\/tags\/:tag_name\/release$/, 409, "tags.rb: conflict!('Release already exists')"],
  // RotateService: "Token already revoked" once an earlier cell rotated it (bad_request!).
  [/\/access_tokens\/:token_id\/rotate$|^post \/personal_access_tokens\/:id\/rotate$/, 400, 'rotated (revoked) by an earlier cell'],
];
/** ONCE rules that hold per user: the same user (admin and admin via sudo) repeating it. */
const ONCE_PER_USER: [RegExp, number, string][] = [
  [/^post \/projects\/:id\/fork$/, 409, "the caller's namespace already has the fork: name and path 'has already been taken'"],
  [/^post \/projects\/:id\/merge_requests\/:merge_request_iid\/approve$/, 401, 'ee approvals: can_approve? is false once the user approved'],
  [/^post \/projects\/:id\/merge_requests\/:merge_request_iid\/unapprove$/, 404, 'ee approvals: has_approved? is false once the user unapproved'],
];

/**
 * Writes that set a per-user state: GitLab answers 201, or 304 Not Modified when the caller is already in it (subscribe,
 * unsubscribe, todo, star, unstar; admin and admin via sudo are one user). `toggled` holds `user resource` pairs in the state.
 */
const TOGGLE = /\/(subscribe|unsubscribe|todo|star|unstar)$/;
const toggled = new Set<string>();

/** GitLab's 400 for a parameter the request lacks (Grape's validation, before the endpoint runs). */
const MISSING_PARAMETER = /is missing|are missing|exactly one parameter|at least one parameter|is empty/;

interface Cell {
  readonly route: RouteEntry;
  readonly caller: Caller;
  readonly visibility: Visibility;
  readonly confidential: boolean;
  readonly url: string;
  readonly expected: Expectation;
  readonly body?: Record<string, unknown>;
  /** A multipart body instead (the routes that take an uploaded file). */
  readonly form?: () => FormData;
}

/** Award names, one per award body in turn: an awardable gets at most 2 routes x 13 cells, so no user repeats a name on it. */
const EMOJI = ['thumbsup', 'thumbsdown', 'smile', 'tada', 'heart', 'rocket', 'eyes', 'star', 'fire', 'clap', 'ok_hand', 'wave', 'laughing', 'cry',
  'sunglasses', 'thinking', 'muscle', 'pray', 'sparkles', 'zap', 'coffee', 'pizza', 'beer', 'cake', 'apple', 'banana', 'cherries', 'grapes', 'lemon', 'melon', 'peach', 'pear'];
let awards = 0;

let site: TestSite;
const worlds = {} as Record<Visibility, World>;
/** Values per world that `fill` cannot know: which discussion's note, which event, the promote and doomed resources. */
const extras = {} as Record<Visibility, Record<string, string>>;
const spares: TestUser[] = [];
/** A group the worlds' projects and groups are shared with (POST and DELETE /projects/:id/share and /groups/:id/share). */
let shareGroupId = 0;
/** The system hook the /hooks/:hook_id cells name. */
let systemHookId = '';
const callers: Caller[] = [];
let confidentialIid = '';
/** The confidential issue's own note, discussion, awards and events (the public world's values name the other issue's). */
let confidentialValues: Record<string, string> = {};
/** Admin-route values on the world's member (a second key, email and GPG key, so the member's own stay for /user/...). */
const memberValues: Record<string, string> = {};
/** A personal access token of a user who is none of the callers (the matrix's own credentials stay valid when a cell revokes it). */
let otherTokenId = '';
/** Another user's token for the rotate cells (rotation revokes it, so it is not the one the revoke cells use). */
let rotatedTokenId = '';
/** A broadcast message for GET, PUT and DELETE /broadcast_messages/:id. */
let broadcastId = '';

/** Minimal valid bodies, by `method path` pattern, so an allowed write reaches success (`n` makes names unique). */
const BODIES: [RegExp, (n: number, cell: { visibility: Visibility; slot: number; extra: Record<string, string> }) => Record<string, unknown> | Promise<Record<string, unknown>>][] = [
  // topics.rb: an admin's new topic
  [/^post \/topics$/, (n) => ({ name: `matrix-topic-${n}`, title: `Topic ${n}` })],
  // issues, notes, discussions, awards (issues.rb, notes.rb, discussions.rb, award_emoji.rb)
  [/^post \/projects\/:id\/issues$/, (n) => ({ title: `Issue ${n}` })],
  [/^post \/broadcast_messages$/, (n) => ({ message: `Broadcast ${n}` })],
  [/^post \/markdown$/, (n) => ({ text: `**Markdown ${n}** #1` })],
  [/^put \/projects\/:id\/issues\/:issue_iid$/, (n) => ({ description: `edited ${n}` })],
  [/^post .*\/(time_estimate|add_spent_time)$/, () => ({ duration: '1h' })],
  [/^post .*\/(notes|discussions|discussions\/:discussion_id\/notes)$/, (n) => ({ body: `note ${n}` })],
  [/^put .*\/notes\/:note_id$/, (n) => ({ body: `edited ${n}` })],
  [/^post .*\/award_emoji$/, () => ({ name: EMOJI[awards++ % EMOJI.length] })],
  [/^put \/projects\/:id\/merge_requests\/:merge_request_iid\/discussions\/:discussion_id$/, () => ({ resolved: true })],
  // snippets (snippets.rb, project_snippets.rb)
  [/^post \/snippets$/, (n) => ({ title: `snippet ${n}`, file_name: `s${n}.txt`, content: 'x' })],
  [/^post \/projects\/:id\/snippets$/, (n) => ({ title: `snippet ${n}`, visibility: 'private', file_name: `s${n}.txt`, content: 'x' })],
  [/^put \/(projects\/:id\/snippets\/:snippet_id|snippets\/:id)$/, (n) => ({ description: `snippet ${n}` })],
  // labels and milestones
  [/^post \/(projects|groups)\/:id\/labels$/, (n) => ({ name: `label${n}`, color: '#123456' })],
  [/^put \/projects\/:id\/labels$/, (n) => ({ name: 'bug', description: `label ${n}` })],
  [/^put \/groups\/:id\/labels$/, (n, cell) => ({ name: worlds[cell.visibility].group_values.name, description: `label ${n}` })],
  [/^delete \/projects\/:id\/labels$/, (_n, cell) => ({ name: cell.extra.body_delete_label })],
  [/^delete \/groups\/:id\/labels$/, (_n, cell) => ({ name: `g-${cell.extra.body_delete_label}` })],
  [/^(put|post) \/projects\/:id\/labels\/promote$/, (_n, cell) => ({ name: cell.extra.promote_body_label })],
  [/^put \/(projects|groups)\/:id\/labels\/:name$/, (n) => ({ description: `label ${n}` })],
  [/^post \/(projects|groups)\/:id\/milestones$/, (n) => ({ title: `milestone ${n}` })],
  [/^put \/(projects|groups)\/:id\/milestones\/:milestone_id$/, (n) => ({ description: `milestone ${n}` })],
  // boards and epics
  [/^post \/(projects|groups)\/:id\/boards$/, (n) => ({ name: `board ${n}` })],
  [/^put \/(projects|groups)\/:id\/boards\/:board_id\/lists\/:list_id$/, () => ({ position: 0 })],
  // a label of its own per allowed cell, so each list is new
  [/^post \/projects\/:id\/boards\/:board_id\/lists$/, (_n, cell) => ({ label_id: Number(cell.extra[`list_label_${cell.slot}`]) })],
  [/^post \/groups\/:id\/boards\/:board_id\/lists$/, (_n, cell) => ({ label_id: Number(cell.extra[`group_list_label_${cell.slot}`]) })],
  [/^post \/groups\/:id\/(-\/)?epics$/, (n) => ({ title: `epic ${n}` })],
  [/^put \/groups\/:id\/(-\/)?epics\/:epic_iid$/, (n) => ({ description: `epic ${n}` })],
  // merge requests: update; merging with a stale sha keeps the world (GitLab answers 409, NAMED_WRITES)
  [/^put \/projects\/:id\/merge_requests\/:merge_request_iid$/, (n) => ({ description: `edited ${n}` })],
  [/^post \/projects\/:id\/merge_requests$/, (n, cell) => ({ source_branch: cell.extra.merge_request_source, target_branch: 'master', title: `MR ${n}` })],
  [/^put \/projects\/:id\/merge_requests\/:merge_request_iid\/merge$/, () => ({ sha: '0'.repeat(40) })],
  // wikis, badges, hooks, deploy keys, custom attributes
  [/^post \/(projects|groups)\/:id\/wikis$/, (n) => ({ title: `page ${n}`, content: 'hello' })],
  [/^put \/(projects|groups)\/:id\/wikis\/:slug$/, (n) => ({ content: `edited ${n}` })],
  [/^post \/(projects|groups)\/:id\/badges$/, () => ({ link_url: 'http://example.com/l', image_url: 'http://example.com/i.png' })],
  [/^put \/(projects|groups)\/:id\/badges\/:badge_id$/, (n) => ({ link_url: `http://example.com/${n}` })],
  // push mirrors: disabled (the default), so no push goes to the loopback port nobody listens on
  [/^post \/projects\/:id\/remote_mirrors$/, (n) => ({ url: `http://127.0.0.1:9/mirror${n}.git` })],
  [/^put \/projects\/:id\/remote_mirrors\/:mirror_id$/, () => ({ keep_divergent_refs: true })],
  [/^(post|put) \/(projects|groups)\/:id\/hooks(\/:hook_id)?$/, (n) => ({ url: `http://127.0.0.1:9/hook${n}` })],
  // system hooks (POST /hooks/:hook_id, the test event, ignores the url)
  [/^(post|put) \/hooks(\/:hook_id)?$/, (n) => ({ url: `http://127.0.0.1:9/system${n}` })],
  // releases and their links (a new tag from master each; the world's release edited and its links added)
  [/^post \/projects\/:id\/releases$/, (n) => ({ tag_name: `matrix-rel${n}`, ref: 'master' })],
  [/^put \/projects\/:id\/releases\/:tag_name$/, (n) => ({ description: `edited ${n}` })],
  [/^post \/projects\/:id\/releases\/:tag_name\/assets\/links$/, (n) => ({ name: `link ${n}`, url: `https://example.com/link${n}` })],
  [/^put \/projects\/:id\/releases\/:tag_name\/assets\/links\/:link_id$/, (n) => ({ name: `edited link ${n}` })],
  [/^post \/projects\/:id\/deploy_keys$/, (n) => ({ title: `deploy ${n}`, key: sshPublicKey() })],
  [/^put \/projects\/:id\/deploy_keys\/:key_id$/, (n) => ({ title: `deploy ${n}` })],
  [/^put .*\/custom_attributes\/:key$/, (n) => ({ value: `v${n}` })],
  // updates that keep the worlds: a description, the member's own access level again, a user's bio
  [/^put \/(projects|groups)\/:id$/, (n) => ({ description: `described ${n}` })],
  [/^put \/(projects|groups)\/:id\/members\/:user_id$/, () => ({ access_level: ACCESS.developer })],
  [/^put \/users\/:id$/, (n) => ({ bio: `bio ${n}` })],
  // projects, groups and users of their own
  [/^post \/projects$/, (n) => ({ name: `matrix project ${n}` })],
  [/^post \/projects\/user\/:user_id$/, (n) => ({ name: `matrix project ${n}` })],
  [/^post \/groups$/, (n) => ({ name: `matrix group ${n}`, path: `matrix-group-${n}` })],
  [/^post \/users$/, (n) => ({ email: `matrix${n}@example.com`, username: `matrix${n}`, name: `Matrix ${n}`, password: 'password123' })],
  [/^post \/(projects|groups)\/:id\/share$/, () => ({ group_id: shareGroupId, group_access: ACCESS.developer })],
  // members: a spare user per allowed cell of the project or group
  [/^post \/(projects|groups)\/:id\/members$/, (_n, cell) => ({ user_id: spares[cell.slot]!.id, access_level: ACCESS.reporter })],
  // repository
  [/^post \/projects\/:id\/repository\/branches$/, (n) => ({ branch: `branch${n}`, ref: 'master' })],
  [/^post \/projects\/:id\/repository\/tags$/, (n) => ({ tag_name: `tag${n}`, ref: 'master' })],
  [/^(post|put) \/projects\/:id\/repository\/tags\/:tag_name\/release$/, (n) => ({ description: `release ${n}` })],
  [/^post \/projects\/:id\/protected_branches$/, (n) => ({ name: `protected${n}` })],
  [/^post \/projects\/:id\/protected_tags$/, (n) => ({ name: `ptag${n}` })],
  // a new branch each (master is protected: 10.x's Files::MultiService answers 400 to developers there, test/integration/protected-refs)
  [/^post \/projects\/:id\/repository\/commits$/, (n) => ({ branch: `commit${n}`, start_branch: 'master', commit_message: `c${n}`, actions: [{ action: 'create', file_path: `f${n}.txt`, content: 'x\n' }] })],
  [/^post \/projects\/:id\/repository\/files\/:file_path$/, (n) => ({ branch: `file${n}`, start_branch: 'master', content: 'x\n', commit_message: `f${n}` })],
  [/^put \/projects\/:id\/repository\/files\/:file_path$/, (n) => ({ branch: 'topic', content: `v${n}\n`, commit_message: `f${n}` })],
  [/^delete \/projects\/:id\/repository\/files\/:file_path$/, (n) => ({ branch: `gone${n}`, start_branch: 'topic', commit_message: `rm${n}` })],
  // the topic commit picked onto a branch from master, reverted on a branch from topic (their own branches, see seedExtras)
  [/^post \/projects\/:id\/repository\/commits\/:sha\/cherry_pick$/, (_n, cell) => ({ branch: cell.extra.pick_branch })],
  [/^post \/projects\/:id\/repository\/commits\/:sha\/revert$/, (_n, cell) => ({ branch: cell.extra.revert_branch })],
  [/^post \/projects\/:id\/statuses\/:sha$/, (n) => ({ state: 'success', name: `ci${n}` })],
  [/^post \/projects\/:id\/repository\/commits\/:sha\/comments$/, (n) => ({ note: `comment ${n}` })],
  // users: keys, GPG keys, emails, tokens (users.rb)
  [/^post \/users?(\/:id)?\/keys$/, (n) => ({ title: `key ${n}`, key: sshPublicKey() })],
  [/^post \/users?(\/:id)?\/gpg_keys$/, async (n) => ({ key: (await gpgKeyPair(`gpg${n}@example.com`)).publicKey })],
  [/^post \/users?(\/:id)?\/emails$/, (n) => ({ email: `extra${n}@example.com` })],
  [/^post \/users\/:user_id\/(impersonation_tokens|personal_access_tokens)$/, (n) => ({ name: `token ${n}`, scopes: ['api'] })],
  // ee approval rules (a regular rule each, so no any-approver clash) and access tokens (a guest bot: every manager may give it)
  [/^post .*\/approval_rules$/, (n) => ({ name: `rule ${n}`, approvals_required: 0, rule_type: 'regular' })],
  [/^put .*\/approval_rules\/:approval_rule_id$/, () => ({ approvals_required: 0 })],
  [/^post \/(projects|groups)\/:id\/access_tokens$/, (n) => ({ name: `bot ${n}`, scopes: ['read_api'], access_level: ACCESS.guest })],
];

/** Multipart bodies for the routes that take a `file` (uploads.rb, wikis.rb attachments, the job artifacts upload). */
const FORMS: Record<string, () => FormData> = {
  'post /projects/:id/uploads': () => formWith('file', 'notes.txt', 'an upload\n'),
  'post /projects/:id/wikis/attachments': () => formWith('file', 'attached.txt', 'an attachment\n'),
  'post /groups/:id/wikis/attachments': () => formWith('file', 'attached.txt', 'an attachment\n'),
  'post /projects/:id/jobs/:job_id/artifacts': () => formWith('file', 'artifacts.zip', 'PK\u0005\u0006' + '\u0000'.repeat(18)),
};
function formWith(field: string, name: string, content: string): FormData {
  const form = new FormData();
  form.append(field, new Blob([content]), name);
  return form;
}

/** Query strings a read needs to name its resource (files on the world's topic branch, compare, badges, key fingerprints). */
const QUERIES: Record<string, () => string> = {
  'get /search': () => 'scope=issues&search=seeded',
  'get /groups/:id/search': () => 'scope=issues&search=seeded',
  'get /projects/:id/search': () => 'scope=issues&search=seeded',
  'get /projects/:id/repository/files/:file_path': () => 'ref=topic',
  'get /projects/:id/repository/files/:file_path/blame': () => 'ref=topic',
  'get /projects/:id/repository/files/:file_path/raw': () => 'ref=topic',
  'get /projects/:id/repository/compare': () => 'from=master&to=topic',
  'get /projects/:id/repository/merge_base': () => 'refs[]=master&refs[]=topic',
  'get /projects/:id/badges/render': () => 'link_url=http://example.com/l&image_url=http://example.com/i.png',
  'get /groups/:id/badges/render': () => 'link_url=http://example.com/l&image_url=http://example.com/i.png',
  'get /keys': () => `fingerprint=${encodeURIComponent(memberValues.fingerprint ?? '')}`,
};

/** The cell's URL: the route's path filled from the world, the caller's own resources and the values above. */
function urlFor(route: RouteEntry, caller: Caller, visibility: Visibility, confidential: boolean): string {
  const world = worlds[visibility];
  const extra = confidential ? { ...extras[visibility], ...confidentialValues } : extras[visibility];
  const path = route.path.replace('{.:format}', '');
  const onMe = /^\/user\//.test(path);
  const onUser = /^\/users\/:(id|user_id)\//.test(path);
  const filled = fill(world, path, (name) => {
    if (name === 'job_id') return extra.job_id;
    if (confidential && name === 'issue_iid') return confidentialIid;
    if (confidential && name === 'discussion_id') return confidentialValues.discussion_id;
    if (confidential && name === 'note_id' && !path.includes('/discussions/:discussion_id/notes/:note_id')) return confidentialValues.note_id;
    if (name === 'issue_id' && /epics\/:epic_iid\/issues\/:issue_id$/.test(path)) return extra.epic_candidate_issue_id;
    if (onMe && caller.own) {
      if (name === 'key_id') return caller.own[path.includes('gpg_keys') ? 'gpg_key_id' : 'key_id'];
      if (name === 'email_id') return caller.own.email_id;
    }
    if (onUser) {
      if (name === 'key_id') return memberValues[path.includes('gpg_keys') ? 'gpg_key_id' : 'key_id'];
      if (name === 'email_id') return memberValues.email_id;
      if (name === 'impersonation_token_id') return memberValues.token_id;
    }
    if (path === '/keys/:id' && name === 'id') return memberValues.key_id;
    if (path === '/personal_access_tokens/:id' && name === 'id') return otherTokenId;
    if (path === '/personal_access_tokens/:id/rotate' && name === 'id') return rotatedTokenId;
    // The rule and token a delete takes away are their own; the others stay for the reads and edits.
    if (name === 'approval_rule_id') return extra[`${path.includes('/merge_requests/') ? 'merge_request' : 'project'}_rule${route.method === 'delete' ? '_doomed' : ''}`];
    if (name === 'token_id') return extra[`${path.startsWith('/groups/') ? 'group' : 'project'}_token${route.method === 'delete' ? '_doomed' : path.endsWith('/rotate') ? '_rotated' : ''}`];
    if (path === '/todos/:id/mark_as_done' && name === 'id') return caller.own?.todo_id;
    if (name === 'provider' && path.startsWith('/users/')) return memberValues.provider;
    if (path.startsWith('/namespaces/') && name === 'id') return String(world.group.id);
    if (/^\/(projects|groups)\/:id\/share\/:group_id$/.test(path) && name === 'group_id') return String(shareGroupId);
    if (path === '/projects/:id/share/:group_id' && name === 'group_id') return String(shareGroupId);
    if (path === '/broadcast_messages/:id') return broadcastId;
    if (path.includes('/templates/') && name === 'type') return 'licenses';
    if (path.includes('/templates/') && name === 'name') return 'mit';
    if (path.startsWith('/groups/') && (name === 'hook_id' || name === 'badge_id')) return extra[`group_${name}`];
    if (path.startsWith('/hooks/') && name === 'hook_id') return systemHookId;
    if (name === 'key_id' && path.includes('/deploy_keys/')) return extra.deploy_key_id;
    if (name === 'pipeline_id') return extra.pipeline_id;
    if (name === 'name' && path.includes('/protected_branches/')) return extra.protected_branch;
    if (name === 'name' && path.includes('/protected_tags/')) return extra.protected_tag;
    if (name === 'name' && path.endsWith('/promote')) return extra[`promote_label_${route.method}`];
    if (name === 'milestone_id' && path.endsWith('/promote')) return extra.promote_milestone_id;
    if (name === 'branch' && (route.method !== 'get')) return extra.doomed_branch;
    if (name === 'sha' && path.includes('/blobs/')) return extra.blob_sha;
    if (name === 'sha' && /\/(cherry_pick|revert)$/.test(path)) return extra.topic_sha;
    const kind = path.includes('/merge_requests/') ? 'merge_request' : path.includes('epics/') ? 'epic' : path.includes('/repository/commits/') ? 'commit' : path.includes('/snippets/') ? 'snippet' : 'issue';
    if (name === 'discussion_id' && kind !== 'issue') return extra[`${kind}_discussion_id`];
    if (name === 'note_id' && path.includes('/discussions/:discussion_id/notes/')) return extra[`${kind}_discussion_note_id`];
    if (name === 'award_id') return extra[`${kind}${path.includes('/notes/:note_id/') ? '_note' : ''}_award_id`];
    const events = /resource_(label|milestone|state|weight)_events\/:event_id/.exec(path);
    if (name === 'issue_link_id') return extra.issue_link_id ?? world.values.issue_link_id;
    if (name === 'event_id' && events) return extra[`${kind}_${events[1]}_event_id`];
    return undefined;
  });
  const query = QUERIES[`${route.method} ${route.path}`]?.();
  return query ? `${filled}?${query}` : filled;
}

async function seedConfidential(world: World, iid: string): Promise<Record<string, string>> {
  const base = `/projects/${world.project.id}/issues/${iid}`;
  const api = async (path: string, method = 'GET', body?: Record<string, unknown>) => {
    const response = await site.api(path, { method, body });
    if (response.status >= 300) throw new Error(`seed ${method} ${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const note = await api(`${base}/notes`, 'POST', { body: 'a secret note' });
  const discussion = await api(`${base}/discussions`, 'POST', { body: 'a secret thread' });
  const award = await api(`${base}/award_emoji`, 'POST', { name: 'thumbsup' });
  const noteAward = await api(`${base}/notes/${note.id}/award_emoji`, 'POST', { name: 'tada' });
  await api(base, 'PUT', { labels: 'bug', milestone_id: Number(world.values.milestone_id), weight: 3 });
  await api(base, 'PUT', { state_event: 'close' });
  await api(base, 'PUT', { state_event: 'reopen' });
  const other = await api(`/projects/${world.project.id}/issues`, 'POST', { title: 'Linked to the secret' });
  await api(`${base}/links`, 'POST', { target_project_id: world.project.id, target_issue_iid: other.iid });
  const out: Record<string, string> = {
    issue_link_id: String((await api(`${base}/links`))[0].issue_link_id),
    note_id: String(note.id),
    discussion_id: discussion.id,
    issue_discussion_note_id: String(discussion.notes[0].id),
    issue_award_id: String(award.id),
    issue_note_award_id: String(noteAward.id),
  };
  for (const event of ['label', 'milestone', 'state', 'weight'] as const) out[`issue_${event}_event_id`] = String((await api(`${base}/resource_${event}_events`))[0].id);
  return out;
}

async function seedExtras(world: World): Promise<Record<string, string>> {
  const p = `/projects/${world.project.id}`;
  const g = `/groups/${world.group.id}`;
  const api = async (path: string, method = 'GET', body?: Record<string, unknown>) => {
    const response = await site.api(path, { method, body });
    if (response.status >= 300) throw new Error(`seed ${method} ${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const issueIid = world.values.issue_iid!;
  const mergeRequestIid = world.merge_request_values.merge_request_iid!;
  const epicIid = world.epic_values.epic_iid!;
  const issueDiscussion = await api(`${p}/issues/${issueIid}/discussions/${world.values.discussion_id}`);
  const noteAwards = await api(`${p}/issues/${issueIid}/notes/${world.values.note_id}/award_emoji`);
  const commitDiscussion = await api(`${p}/repository/commits/${world.values.sha}/discussions`, 'POST', { body: 'on the commit' });
  const mergeRequestDiscussion = await api(`${p}/merge_requests/${mergeRequestIid}/discussions`, 'POST', { body: 'an MR thread' });
  const mergeRequestAward = await api(`${p}/merge_requests/${mergeRequestIid}/award_emoji`, 'POST', { name: 'thumbsup' });
  const mergeRequestNoteAward = await api(`${p}/merge_requests/${mergeRequestIid}/notes/${world.merge_request_values.note_id}/award_emoji`, 'POST', { name: 'tada' });
  const epicDiscussion = await api(`${g}/epics/${epicIid}/discussions`, 'POST', { body: 'an epic thread' });
  const epicAward = await api(`${g}/epics/${epicIid}/award_emoji`, 'POST', { name: 'thumbsup' });
  const epicNoteAward = await api(`${g}/epics/${epicIid}/notes/${world.epic_values.note_id}/award_emoji`, 'POST', { name: 'tada' });
  const snippetBase = `${p}/snippets/${world.snippet_values.snippet_id}`;
  const snippetDiscussion = await api(`${snippetBase}/discussions`, 'POST', { body: 'a snippet thread' });
  const snippetAward = await api(`${snippetBase}/award_emoji`, 'POST', { name: 'thumbsup' });
  const snippetNoteAward = await api(`${snippetBase}/notes/${world.snippet_values.note_id}/award_emoji`, 'POST', { name: 'tada' });
  // One event of each kind on the issue and the merge request.
  await api(`${p}/issues/${issueIid}`, 'PUT', { state_event: 'close' });
  await api(`${p}/issues/${issueIid}`, 'PUT', { state_event: 'reopen' });
  await api(`${p}/merge_requests/${mergeRequestIid}`, 'PUT', { labels: 'bug', milestone_id: Number(world.values.milestone_id) });
  await api(`${p}/merge_requests/${mergeRequestIid}`, 'PUT', { state_event: 'close' });
  await api(`${p}/merge_requests/${mergeRequestIid}`, 'PUT', { state_event: 'reopen' });
  const firstId = async (path: string) => String((await api(path))[0]?.id);
  const out: Record<string, string> = {
    issue_discussion_note_id: String(issueDiscussion.notes[0].id),
    issue_award_id: world.values.award_id!,
    issue_note_award_id: String(noteAwards[0].id),
    commit_discussion_id: commitDiscussion.id,
    commit_discussion_note_id: String(commitDiscussion.notes[0].id),
    merge_request_discussion_id: mergeRequestDiscussion.id,
    merge_request_discussion_note_id: String(mergeRequestDiscussion.notes[0].id),
    merge_request_award_id: String(mergeRequestAward.id),
    merge_request_note_award_id: String(mergeRequestNoteAward.id),
    epic_discussion_id: epicDiscussion.id,
    epic_discussion_note_id: String(epicDiscussion.notes[0].id),
    epic_award_id: String(epicAward.id),
    epic_note_award_id: String(epicNoteAward.id),
    snippet_discussion_id: snippetDiscussion.id,
    snippet_discussion_note_id: String(snippetDiscussion.notes[0].id),
    snippet_award_id: String(snippetAward.id),
    snippet_note_award_id: String(snippetNoteAward.id),
  };
  for (const [kind, base] of [['issue', `${p}/issues/${issueIid}`], ['merge_request', `${p}/merge_requests/${mergeRequestIid}`]] as const) {
    for (const event of ['label', 'milestone', 'state'] as const) out[`${kind}_${event}_event_id`] = await firstId(`${base}/resource_${event}_events`);
  }
  // The world's issue was created with a weight (fuzz/world.ts): its weight event.
  out.issue_weight_event_id = await firstId(`${p}/issues/${issueIid}/resource_weight_events`);
  out.group_hook_id = String((await api(`${g}/hooks`, 'POST', { url: 'http://127.0.0.1:9/group-hook' })).id);
  out.group_badge_id = String((await api(`${g}/badges`, 'POST', { link_url: 'http://example.com/g', image_url: 'http://example.com/g.png' })).id);
  out.deploy_key_id = String((await api(`${p}/deploy_keys`, 'POST', { title: 'deploy', key: sshPublicKey() })).id);
  out.protected_branch = 'protected-seed';
  await api(`${p}/protected_branches`, 'POST', { name: out.protected_branch });
  out.protected_tag = 'ptag-seed';
  await api(`${p}/protected_tags`, 'POST', { name: out.protected_tag });
  for (const method of ['put', 'post']) {
    out[`promote_label_${method}`] = `promote-${method}`;
    await api(`${p}/labels`, 'POST', { name: out[`promote_label_${method}`], color: '#00aa00' });
  }
  // The body-named promote routes (put and post share one URL, so one label: the second route finds it promoted).
  out.promote_body_label = 'promote-by-body';
  await api(`${p}/labels`, 'POST', { name: out.promote_body_label, color: '#00aa00' });
  out.body_delete_label = `body-delete-${world.project.id}`;
  await api(`${p}/labels`, 'POST', { name: out.body_delete_label, color: '#aa0000' });
  await api(`${g}/labels`, 'POST', { name: `g-${out.body_delete_label}`, color: '#aa0000' });
  for (let slot = 0; slot < 6; slot++) {
    out[`list_label_${slot}`] = String((await api(`${p}/labels`, 'POST', { name: `list-${slot}`, color: '#0000aa' })).id);
    out[`group_list_label_${slot}`] = String((await api(`${g}/labels`, 'POST', { name: `glist-${slot}-${world.project.id}`, color: '#0000aa' })).id);
  }
  out.topic_sha = (await api(`${p}/repository/branches/topic`)).commit.id;
  out.pick_branch = 'pick-target';
  await api(`${p}/repository/branches`, 'POST', { branch: out.pick_branch, ref: 'master' });
  out.revert_branch = 'revert-target';
  await api(`${p}/repository/branches`, 'POST', { branch: out.revert_branch, ref: 'topic' });
  out.merge_request_source = 'mr-source';
  await api(`${p}/repository/branches`, 'POST', { branch: out.merge_request_source, ref: 'topic' });
  out.epic_candidate_issue_id = String((await api(`${p}/issues`, 'POST', { title: 'For the epic' })).id);
  out.promote_milestone_id = String((await api(`${p}/milestones`, 'POST', { title: 'promote me' })).id);
  for (const [owner, base] of [['project', p], ['merge_request', `${p}/merge_requests/${mergeRequestIid}`]] as const) {
    out[`${owner}_rule`] = String((await api(`${base}/approval_rules`, 'POST', { name: 'kept', approvals_required: 0, rule_type: 'regular' })).id);
    out[`${owner}_rule_doomed`] = String((await api(`${base}/approval_rules`, 'POST', { name: 'doomed', approvals_required: 0, rule_type: 'regular' })).id);
  }
  for (const [kind, base] of [['project', p], ['group', g]] as const) {
    for (const suffix of ['', '_doomed', '_rotated']) {
      out[`${kind}_token${suffix}`] = String((await api(`${base}/access_tokens`, 'POST', { name: `seed${suffix}`, scopes: ['read_api'], access_level: ACCESS.guest })).id);
    }
  }
  out.doomed_branch = 'doomed';
  await api(`${p}/repository/branches`, 'POST', { branch: out.doomed_branch, ref: 'topic' });
  await api(`${p}/statuses/${world.values.sha}`, 'POST', { state: 'success', name: 'seed' });
  out.pipeline_id = await firstId(`${p}/pipelines`);
  // The commit status is the project's job (GitLab's generic commit status is a job of the pipeline).
  out.job_id = await firstId(`${p}/jobs`);
  const tree = await api(`${p}/repository/tree`);
  out.blob_sha = tree.find((entry: { type: string }) => entry.type === 'blob').id;
  for (const [base, key] of [[`/users/${world.member.id}`, 'color'], [p, 'color'], [g, 'color']]) await api(`${base}/custom_attributes/${key}`, 'PUT', { value: 'blue' });
  return out;
}

beforeAll(async () => {
  site = await startSite();
  const users = {} as Record<'guest' | 'reporter' | 'developer' | 'maintainer' | 'owner' | 'nonMember' | 'blocked' | 'admin2', TestUser>;
  for (const name of ['guest', 'reporter', 'developer', 'maintainer', 'owner', 'nonMember', 'blocked'] as const) users[name] = await createUser(site);
  users.admin2 = await createUser(site, { admin: true });
  for (let i = 0; i < 4; i++) spares.push(await createUser(site));
  // Public: projects.rb share answers 404 'Group' to whoever may not read the group (read_group).
  shareGroupId = (await createGroup(site, { visibility: 'public' })).id;
  systemHookId = String((await site.api('/hooks', { method: 'POST', body: { url: 'http://127.0.0.1:9/system-seed' } })).body.id);
  for (const visibility of ['private', 'internal', 'public'] as const) {
    const world = await seedWorld(site, { visibility, member: users.developer });
    for (const name of ['guest', 'reporter', 'maintainer', 'owner'] as const) await addMember(site, 'groups', world.group.id, users[name], ACCESS[name]);
    await addMember(site, 'groups', world.group.id, users.developer, ACCESS.developer);
    worlds[visibility] = world;
    extras[visibility] = await seedExtras(world);
  }
  const confidential = await site.api(`/projects/${worlds.public.project.id}/issues`, { method: 'POST', body: { title: 'Secret', confidential: true } });
  if (confidential.status !== 201) throw new Error(confidential.text);
  confidentialIid = String(confidential.body.iid);
  confidentialValues = await seedConfidential(worlds.public, confidentialIid);
  const blocked = await site.api(`/users/${users.blocked.id}/block`, { method: 'POST' });
  if (blocked.status !== 201) throw new Error(blocked.text);
  const revoked = tokenFor(site, users.nonMember.id, ['api']);
  const self = await site.api('/personal_access_tokens/self', { method: 'DELETE', as: revoked });
  if (self.status !== 204) throw new Error(`revoke: ${self.status} ${self.text}`);
  const expired = tokenFor(site, users.nonMember.id, ['api'], '2020-01-01');
  const readUser = tokenFor(site, users.nonMember.id, ['read_user']);
  // An issue only for the callers' own todos (the worlds' issues keep their todo cells to themselves).
  const todoIssue = (await site.api(`/projects/${worlds.public.project.id}/issues`, { method: 'POST', body: { title: 'For the todos' } })).body;
  // Each signed-in caller's own SSH key, GPG key, email and todo; the member's second ones and an impersonation token for the admin routes.
  const own = async (user: TestUser): Promise<Record<string, string>> => {
    const post = async (path: string, body: Record<string, unknown>, as = user.token) => {
      const response = await site.api(path, { method: 'POST', as, body });
      if (response.status !== 201) throw new Error(`seed ${path}: ${response.status} ${response.text}`);
      return response.body;
    };
    const key = await post('/user/keys', { title: 'mine', key: sshPublicKey() });
    const gpg = await post('/user/gpg_keys', { key: (await gpgKeyPair(user.email)).publicKey });
    const email = await post('/user/emails', { email: `own-${user.username}@example.com` });
    const todo = await post(`/projects/${worlds.public.project.id}/issues/${todoIssue.iid}/todo`, {});
    return { key_id: String(key.id), gpg_key_id: String(gpg.id), email_id: String(email.id), todo_id: String(todo.id) };
  };
  const owned = new Map<number, Record<string, string>>();
  for (const user of [users.nonMember, users.guest, users.reporter, users.developer, users.maintainer, users.owner, users.admin2]) owned.set(user.id, await own(user));
  const member = users.developer;
  const adminPost = async (path: string, body: Record<string, unknown>) => {
    const response = await site.api(path, { method: 'POST', body });
    if (response.status !== 201) throw new Error(`seed ${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const memberKeyText = sshPublicKey();
  const memberKey = await adminPost(`/users/${member.id}/keys`, { title: 'second', key: memberKeyText });
  memberValues.key_id = String(memberKey.id);
  memberValues.fingerprint = sshpk.parseKey(memberKeyText, 'ssh').fingerprint('sha256').toString();
  memberValues.gpg_key_id = String((await adminPost(`/users/${member.id}/gpg_keys`, { key: (await gpgKeyPair(member.email)).publicKey })).id);
  memberValues.email_id = String((await adminPost(`/users/${member.id}/emails`, { email: `second-${member.username}@example.com` })).id);
  memberValues.token_id = String((await adminPost(`/users/${member.id}/impersonation_tokens`, { name: 'imp', scopes: ['api'] })).id);
  const tokenOwner = await createUser(site);
  otherTokenId = String((await adminPost(`/users/${tokenOwner.id}/personal_access_tokens`, { name: 'other', scopes: ['api'] })).id);
  rotatedTokenId = String((await adminPost(`/users/${tokenOwner.id}/personal_access_tokens`, { name: 'rotated', scopes: ['api'] })).id);
  broadcastId = String((await adminPost('/broadcast_messages', { message: 'matrix' })).id);
  // An external identity for DELETE /users/:id/identities/:provider (users.rb update sets one from provider and extern_uid).
  memberValues.provider = 'ldapmain';
  const identity = await site.api(`/users/${member.id}`, { method: 'PUT', body: { provider: memberValues.provider, extern_uid: `uid=${member.username},dc=example` } });
  if (identity.status !== 200) throw new Error(`seed identity: ${identity.status} ${identity.text}`);
  // GitLab counts an issue's participants as subscribed (Subscribable#subscribed?): the seeded issues' assignee is the member.
  for (const visibility of ['private', 'internal', 'public'] as const) {
    toggled.add(`${member.id} /projects/${worlds[visibility].project.id}/issues/${worlds[visibility].values.issue_iid}`);
  }
  const token = (value: string) => ({ 'private-token': value });
  const user = (name: CallerName, u: TestUser, level: Level): Caller => ({ name, headers: token(u.token), signedIn: true, admin: false, level, userId: u.id, own: owned.get(u.id) });
  callers.push(
    { name: 'anonymous', headers: {}, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'blocked', headers: token(users.blocked.token), bad: true, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'revoked token', headers: token(revoked), bad: true, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'expired token', headers: token(expired), bad: true, signedIn: false, admin: false, level: ACCESS.none },
    { name: 'read_user token', headers: token(readUser), signedIn: true, admin: false, level: ACCESS.none, readUserOnly: true, userId: users.nonMember.id, own: owned.get(users.nonMember.id) },
    user('non-member', users.nonMember, ACCESS.none),
    user('guest', users.guest, ACCESS.guest),
    user('reporter', users.reporter, ACCESS.reporter),
    user('developer', users.developer, ACCESS.developer),
    user('maintainer', users.maintainer, ACCESS.maintainer),
    user('owner', users.owner, ACCESS.owner),
    { ...user('admin', users.admin2, ACCESS.owner), admin: true },
    { name: 'admin via sudo', headers: { ...token(ROOT_TOKEN), sudo: users.admin2.username }, signedIn: true, admin: true, level: ACCESS.owner, userId: users.admin2.id, own: owned.get(users.admin2.id) },
  );
}, 300_000);
afterAll(() => site?.stop());

/** Milliseconds spent per route (its cells' requests, batched ones overlapping): the slowest are logged. */
const routeMs = new Map<string, number>();

async function send(cell: Cell): Promise<{ status: number; text: string }> {
  const started = performance.now();
  const key = `${cell.route.method} ${cell.route.path}`;
  try {
    return await sendRequest(cell);
  } finally {
    routeMs.set(key, (routeMs.get(key) ?? 0) + performance.now() - started);
  }
}

async function sendRequest(cell: Cell): Promise<{ status: number; text: string }> {
  let body: string | Buffer | undefined;
  let contentType: Record<string, string> = {};
  if (cell.route.method !== 'get' && cell.form) {
    // Serialized by the runtime's own Response, as test/helpers/site.ts does (undici's request takes no global FormData).
    const encoded = new Response(cell.form());
    contentType = { 'content-type': encoded.headers.get('content-type')! };
    body = Buffer.from(await encoded.arrayBuffer());
  } else if (cell.route.method !== 'get') {
    contentType = { 'content-type': 'application/json' };
    body = JSON.stringify(cell.body ?? {});
  }
  const response = await request(`${site.url}/api/v4${cell.url}`, {
    method: cell.route.method.toUpperCase() as 'GET',
    headers: { ...cell.caller.headers, ...contentType },
    body,
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  });
  return { status: response.statusCode, text: (await response.body.text()).slice(0, 2000) };
}

/** How the cells were answered: the exact refusal, a value guard's 400 or 404 before it, allowed with the exact success or with a named status. */
const tally = { exact: 0, valueGuardFirst: 0, success: 0, missingParameter: 0, named: 0, once: 0, toggled: 0 };
/** Allowed writes that only reached GitLab's 400 for a missing parameter (no body in BODIES): listed in the log. */
const missingRoutes = new Set<string>();
/** Routes answered with a NAMED status, listed in the log. */
const namedRoutes = new Set<string>();
/** URLs (and user + URL) a ONCE write already changed for good. */
const done = new Set<string>();

/** The failure of one cell, or null when the answer is what GitLab's rules expect. */
function judge(cell: Cell, status: number, text: string): string | null {
  const { refusal, valueGuardFirst } = cell.expected;
  const key = `${cell.route.method} ${cell.route.path}`;
  const tag = `${cell.route.method.toUpperCase()} ${cell.route.path} as ${cell.caller.name} on ${cell.visibility}${cell.confidential ? ' (confidential issue)' : ''}: ${status} ${text.slice(0, 200)}`;
  if (status >= 500) return tag;
  if (refusal !== null) {
    if (status === refusal) {
      tally.exact++;
      return null;
    }
    // Grape validates a required parameter before the endpoint runs (400 `... is missing`); a guard finding a resource answers its 404 first.
    if (valueGuardFirst && ((status === 400 && MISSING_PARAMETER.test(text)) || (status === 404 && /Not [Ff]ound/.test(text)))) {
      tally.valueGuardFirst++;
      return null;
    }
    return `${tag} (expected ${refusal})`;
  }
  const success = SUCCESS[key] ?? METHOD_SUCCESS[cell.route.method];
  const once = ONCE.find(([pattern]) => pattern.test(key));
  const perUser = ONCE_PER_USER.find(([pattern]) => pattern.test(key));
  const resource = cell.url.replace('/-/', '/').replace(/\/revoke$/, '');
  const onceKey = perUser ? `${cell.caller.userId} ${resource}` : resource;
  const rule = once ?? perUser;
  if (rule && done.has(onceKey)) {
    if (status === rule[1]) {
      tally.once++;
      return null;
    }
    return `${tag} (expected ${rule[1]}: ${rule[2]})`;
  }
  const toggle = cell.route.method === 'post' ? TOGGLE.exec(cell.route.path)?.[1] : undefined;
  if (toggle) {
    const on = toggle === 'subscribe' || toggle === 'star' || toggle === 'todo';
    const state = `${cell.caller.userId} ${cell.url.replace(/\/(un)?(subscribe|star)$/, '')}`;
    const already = toggled.has(state) === on;
    if (on) toggled.add(state);
    else toggled.delete(state);
    if (already) {
      if (status !== 304) return `${tag} (expected 304: the caller is already in that state)`;
      tally.toggled++;
      return null;
    }
  }
  if (status === success) {
    if (rule) done.add(onceKey);
    tally.success++;
    return null;
  }
  const named = NAMED[key];
  if (named && status === named.status) {
    tally.named++;
    namedRoutes.add(key);
    return null;
  }
  if (cell.route.method !== 'get' && !cell.body && !cell.form && status === 400 && MISSING_PARAMETER.test(text)) {
    tally.missingParameter++;
    missingRoutes.add(key);
    return null;
  }
  return `${tag} (expected ${success}${named ? ` or ${named.status}: ${named.reason}` : ''}${cell.body ? ` with the body ${JSON.stringify(cell.body).slice(0, 80)}` : ''})`;
}

/** Deeper paths first, so a DELETE of a note runs before the DELETE of its issue. */
const depth = (cell: Cell) => cell.route.path.split('/').length;

describe('the authorization matrix from the route table', () => {
  it('has no route without an authorization guard but the commented public ones', () => {
    const unguarded = routeIndex().filter((route) => !hasAuthorizationGuard(route) && !(`${route.method} ${route.path}` in PUBLIC_ROUTES));
    expect(unguarded.map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('answers every route for every caller and subject as GitLab does', async () => {
    const started = performance.now();
    const cells: Cell[] = [];
    let n = 0;
    for (const route of routeIndex()) {
      const subjects: Subject[] = route.subject
        ? (['private', 'internal', 'public'] as const).map((visibility) => ({ visibility, confidential: false }))
        : [{ visibility: 'private', confidential: false }];
      if (route.pathParams.includes('issue_iid')) subjects.push({ visibility: 'public', confidential: true });
      const key = `${route.method} ${route.path}`;
      const makeBody = BODIES.find(([pattern]) => pattern.test(key))?.[1];
      for (const subject of subjects) {
        let slot = 0;
        for (const caller of callers) {
          const expected = expectation(route, caller, subject);
          const url = urlFor(route, caller, subject.visibility, subject.confidential);
          const body = route.method !== 'get' && makeBody ? await makeBody(++n, { visibility: subject.visibility, slot: expected.refusal === null ? slot++ : 0, extra: extras[subject.visibility] }) : undefined;
          cells.push({ route, caller, ...subject, url, expected, body, form: FORMS[key] });
        }
      }
    }
    // Refusals and reads change nothing: they run in parallel batches; the writes that pass run one by one, least privileged
    // first, in table order, the deletes last and deepest first.
    const safe = cells.filter((cell) => cell.expected.refusal !== null || cell.route.method === 'get');
    const writes = cells.filter((cell) => !safe.includes(cell));
    const last = (cell: Cell) => FINAL.indexOf(`${cell.route.method} ${cell.route.path}`);
    const ordered = [
      ...writes.filter((cell) => last(cell) < 0 && cell.route.method !== 'delete'),
      ...writes.filter((cell) => last(cell) < 0 && cell.route.method === 'delete').sort((a, b) => depth(b) - depth(a)),
      ...writes.filter((cell) => last(cell) >= 0).sort((a, b) => last(a) - last(b)),
    ];
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
    const readsSeconds = (performance.now() - started) / 1000;
    for (const cell of ordered) {
      const answer = await send(cell);
      const failure = judge(cell, answer.status, answer.text);
      if (failure) failures.push(failure);
    }
    const seconds = (performance.now() - started) / 1000;
    const allowed = tally.success + tally.missingParameter + tally.named + tally.once + tally.toggled;
    console.log(
      `authz matrix: ${cells.length} cells asserted (${safe.length} refusals and reads in batches of ${BATCH}, ${writes.length} allowed writes one by one) ` +
        `over ${routeIndex().length} routes and ${callers.length} callers in ${seconds.toFixed(1)} s (${readsSeconds.toFixed(1)} s to the writes): ${tally.exact} refused exactly, ` +
        `${tally.valueGuardFirst} refused first by a parameter guard (400/404), ${allowed} allowed: ${tally.success} with the exact success, ` +
        `${tally.missingParameter} with GitLab's 400 for a missing parameter (no body), ${tally.named} with a named status, ` +
        `${tally.once} with the status after an earlier cell's change, ${tally.toggled} with 304 (already in that state); ${failures.length} failed`,
    );
    const slowest = [...routeMs].sort((a, b) => b[1] - a[1]).slice(0, 15);
    console.log(`authz matrix: slowest routes: ${slowest.map(([key, ms]) => `${key} ${(ms / 1000).toFixed(1)} s`).join(', ')}`);
    console.log(`authz matrix: allowed writes without a body in BODIES (GitLab's 400 for the missing parameter): ${[...missingRoutes].join(', ')}`);
    console.log(`authz matrix: routes with a named status: ${[...namedRoutes].map((key) => `${key} (${NAMED[key]!.status})`).join(', ')}`);
    if (process.env.AUTHZ_FAILURES) (await import('node:fs')).writeFileSync(process.env.AUTHZ_FAILURES, failures.join('\n'));
    expect(failures.slice(0, 150), `${failures.length} cells failed`).toEqual([]);
  }, 900_000);
});
