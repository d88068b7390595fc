import type { Db } from '../db/connection.js';
import { AUTHORIZED_PROJECT_IDS, MEMBER_GROUP_IDS, groupAccessLevel, hasAccessBelowGroup, projectAccessLevel, projectIdsWithAccessAtLeast } from '../db/tables/access.js';
import { isDeployKeyInProjects } from '../db/tables/deploy-keys.js';
import type { UserRow } from '../db/tables/users.js';
import { actingAs, type Actor } from './users/authentication.js';
import { today } from '../storage/clock.js';
import { ACCESS, VISIBILITY, type AccessLevel } from '../db/levels.js';

/** The one home of permission rules; families add their abilities here. */
export function isAdmin(actor: Actor | null): boolean {
  return !!actor && actor.user.admin === 1;
}

/**
 * Whether a resource of this visibility is readable without any membership: public by anyone,
 * internal by any signed-in user who is not external (GitLab's external users see public only).
 */
export function visibleWithoutMembership(actor: Actor | null, visibilityLevel: number): boolean {
  if (visibilityLevel >= VISIBILITY.public) return true;
  return visibilityLevel >= VISIBILITY.internal && !!actor && actor.user.external === 0;
}

/** The lowest visibility readable without membership, for lists that filter in SQL: internal for users, public for anonymous and external callers. */
export function lowestVisibleWithoutMembership(actor: Actor | null): number {
  return actor && actor.user.external === 0 ? VISIBILITY.internal : VISIBILITY.public;
}

/** Namespaces: a user's own namespace (admins: every one), and any group the actor may read. */
export function canReadNamespace(db: Db, actor: Actor | null, namespace: GroupRef & { kind: string; owner_id: number | null }): boolean {
  if (namespace.kind === 'group') return can(db, actor, 'read_group', namespace);
  if (!actor) return false;
  return isAdmin(actor) || namespace.owner_id === actor.user.id;
}

/** Top-level groups: admins, and users allowed to create groups (GITLAB-NOTES 2.1); subgroups need create_subgroup. */
export function canCreateTopLevelGroup(actor: Actor): boolean {
  return isAdmin(actor) || actor.user.can_create_group === 1;
}

export interface GroupRef {
  readonly id: number;
  readonly visibility_level: number;
}

export interface ProjectRef {
  readonly id: number;
  readonly namespace_id: number;
  readonly visibility_level: number;
  readonly archived: number;
  readonly public_jobs: number;
  readonly issues_enabled: number;
  readonly wiki_enabled: number;
  readonly merge_requests_enabled: number;
}

/** The actor's access level on a group (0 for anonymous callers); admins count as owners. */
export function groupAccess(db: Db, actor: Actor | null, group: GroupRef): number {
  if (!actor) return ACCESS.none;
  if (isAdmin(actor)) return ACCESS.owner;
  return groupAccessLevel(db, actor.user.id, group.id, today());
}

/** The actor's access level on a project (0 for anonymous callers); admins count as owners. */
export function projectAccess(db: Db, actor: Actor | null, project: ProjectRef): number {
  if (!actor) return ACCESS.none;
  if (isAdmin(actor)) return ACCESS.owner;
  return projectAccessLevel(db, actor.user.id, project, today());
}

/**
 * One rule per ability: whether the actor may, given the subject and a lazy read of the actor's
 * access level on it (a public read costs no membership query).
 */
type Rule<S> = (db: Db, actor: Actor | null, subject: S, access: () => number) => boolean;

const atLeast =
  <S>(level: AccessLevel): Rule<S> =>
  (_db, _actor, _subject, access) =>
    access() >= level;

/** Public projects to anyone, internal ones to signed-in non-external users, else `level` and up. */
const visibleOr =
  (level: AccessLevel): Rule<ProjectRef> =>
  (_db, actor, project, access) =>
    visibleWithoutMembership(actor, project.visibility_level) || access() >= level;

/** An archived project is read-only: abilities that change its content are refused there. */
const unlessArchived =
  (rule: Rule<ProjectRef>): Rule<ProjectRef> =>
  (db, actor, project, access) =>
    !project.archived && rule(db, actor, project, access);

const readProject = visibleOr(ACCESS.guest);

/** The wiki switched off (`wiki_enabled` false) refuses every wiki ability, as GitLab's wiki feature does (403 to whoever sees the project). */
const whenWikiEnabled =
  (rule: Rule<ProjectRef>): Rule<ProjectRef> =>
  (db, actor, project, access) =>
    project.wiki_enabled === 1 && rule(db, actor, project, access);

/** The issue tracker switched off (`issues_enabled` false) refuses every issue ability, as GitLab's issues feature does. */
const whenIssuesEnabled =
  (rule: Rule<ProjectRef>): Rule<ProjectRef> =>
  (db, actor, project, access) =>
    project.issues_enabled === 1 && rule(db, actor, project, access);

/** Merge requests switched off (`merge_requests_enabled` false) refuse every merge request ability, as GitLab's feature does. */
const whenMergeRequestsEnabled =
  (rule: Rule<ProjectRef>): Rule<ProjectRef> =>
  (db, actor, project, access) =>
    project.merge_requests_enabled === 1 && rule(db, actor, project, access);

/** What may be done to a project and who may (GITLAB-NOTES 2.2), under GitLab's ability names. */
const PROJECT_RULES = {
  read_project: readProject,
  /** Cloning and the repository API's reads: guests of a private project may not. */
  download_code: visibleOr(ACCESS.reporter),
  /** Forking copies the code, so it needs what downloading does. */
  fork_project: visibleOr(ACCESS.reporter),
  /** read_build / read_pipeline / read_commit_status: reporters, and readers when the project's jobs are public. */
  read_build: (db, actor, project, access) => access() >= ACCESS.reporter || (project.public_jobs === 1 && readProject(db, actor, project, access)),
  /** Also GitLab's update_build and create_commit_status, which need exactly this. */
  push_code: unlessArchived(atLeast(ACCESS.developer)),
  upload_file: unlessArchived(atLeast(ACCESS.guest)),
  /** Settings, hooks and shares. */
  admin_project: atLeast(ACCESS.maintainer),
  admin_project_member: atLeast(ACCESS.maintainer),
  rename_project: atLeast(ACCESS.owner),
  /** Moving the project to another namespace (GitLab's change_namespace: owners and admins). */
  change_namespace: atLeast(ACCESS.owner),
  /** Push mirrors (GitLab's admin_remote_mirror): maintainers. */
  admin_remote_mirror: atLeast(ACCESS.maintainer),
  /** git gc on demand (POST /projects/:id/housekeeping, GitLab's authorize_admin_project). */
  run_housekeeping: atLeast(ACCESS.maintainer),
  change_visibility_level: atLeast(ACCESS.owner),
  archive_project: atLeast(ACCESS.owner),
  remove_project: atLeast(ACCESS.owner),
  /**
   * The issue tracker (GitLab's project policy): whoever reads the project reads its issues (a
   * confidential one only as issue rules in services/issuables say) and, signed in, opens issues,
   * comments and awards emoji; reporters manage every issue, labels and milestones and read
   * confidential issues; maintainers edit anyone's notes.
   */
  read_issue: whenIssuesEnabled(readProject),
  create_issue: whenIssuesEnabled(unlessArchived(readProject)),
  /** An archived project takes no comments, edits of them or award emoji (GitLab's READONLY_FEATURES note, READONLY_ABILITIES award_emoji). */
  create_note: unlessArchived(readProject),
  award_emoji: unlessArchived(readProject),
  admin_issue: whenIssuesEnabled(unlessArchived(atLeast(ACCESS.reporter))),
  read_confidential_issues: atLeast(ACCESS.reporter),
  /** Linking issues (GitLab 17's admin_issue_link): members from guest up, where the tracker is on and the project not archived. */
  admin_issue_link: whenIssuesEnabled(unlessArchived(atLeast(ACCESS.guest))),
  /** Deleting an issue is for owners (and admins), as GitLab's destroy_issue. */
  destroy_issue: whenIssuesEnabled(unlessArchived(atLeast(ACCESS.owner))),
  /** Backdating an issue (`created_at` on create, `updated_at` on edit): owners and admins. */
  set_issue_created_at: atLeast(ACCESS.owner),
  admin_label: unlessArchived(atLeast(ACCESS.reporter)),
  admin_milestone: unlessArchived(atLeast(ACCESS.reporter)),
  admin_note: unlessArchived(atLeast(ACCESS.maintainer)),
  /** Backdating a note (`created_at` on create): owners and admins, as GitLab's set_note_created_at. */
  set_note_created_at: atLeast(ACCESS.owner),
  /**
   * Issue boards (GITLAB-NOTES 2.4): whoever reads the issues reads the boards; reporters create and
   * delete boards (ee) and create and move lists; deleting a list is for project owners and admins
   * (decision 8, the SPEC's rule, where GitLab's code lets reporters).
   */
  read_board: whenIssuesEnabled(readProject),
  admin_board: whenIssuesEnabled(unlessArchived(atLeast(ACCESS.reporter))),
  admin_list: whenIssuesEnabled(unlessArchived(atLeast(ACCESS.reporter))),
  destroy_list: whenIssuesEnabled(unlessArchived(atLeast(ACCESS.owner))),
  /** The wiki (GitLab's project policy): whoever reads the project reads its pages; developers write pages and attachments; maintainers delete pages. */
  read_wiki: whenWikiEnabled(readProject),
  create_wiki: whenWikiEnabled(unlessArchived(atLeast(ACCESS.developer))),
  admin_wiki: whenWikiEnabled(unlessArchived(atLeast(ACCESS.maintainer))),
  /**
   * Merge requests (GitLab's ProjectPolicy, GITLAB-NOTES 2.3): whoever may download the code reads
   * them (public and internal readers, reporters of a private project); opening one from a branch
   * of this project (create_merge_request_from) is for developers; a fork's merge request lands in
   * its upstream (create_merge_request_in) for whoever reads the upstream's merge requests;
   * developers edit any merge request (update, admin: labels, milestone, assignee) and its author
   * edits their own (services/merge-requests); owners and admins delete them.
   */
  read_merge_request: whenMergeRequestsEnabled(visibleOr(ACCESS.reporter)),
  create_merge_request_from: whenMergeRequestsEnabled(unlessArchived(atLeast(ACCESS.developer))),
  create_merge_request_in: whenMergeRequestsEnabled(unlessArchived(visibleOr(ACCESS.reporter))),
  update_merge_request: whenMergeRequestsEnabled(unlessArchived(atLeast(ACCESS.developer))),
  admin_merge_request: whenMergeRequestsEnabled(unlessArchived(atLeast(ACCESS.developer))),
  destroy_merge_request: whenMergeRequestsEnabled(atLeast(ACCESS.owner)),
  /**
   * Releases (GitLab 17's ProjectPolicy): whoever reads the project lists them, guests of a private
   * project included (the entity then leaves out the tag, commit and sources: download_code);
   * developers create, edit and delete them and their links (a protected tag's creators only, in
   * services/releases).
   */
  read_release: readProject,
  create_release: unlessArchived(atLeast(ACCESS.developer)),
  /** Approval rules (ee): whoever may open a merge request here reads them; maintainers change them (GitLab's manage_merge_request_settings). */
  read_approval_rules: whenMergeRequestsEnabled(visibleOr(ACCESS.reporter)),
  /** Project access tokens (GitLab's read/create/destroy_resource_access_tokens): maintainers. */
  manage_project_access_tokens: atLeast(ACCESS.maintainer),
} satisfies Record<string, Rule<ProjectRef>>;
export type ProjectAbility = keyof typeof PROJECT_RULES;

/** Visible groups, and private ones to their members and to members of anything below them. */
const readGroup: Rule<GroupRef> = (db, actor, group, access) =>
  visibleWithoutMembership(actor, group.visibility_level) || isAdmin(actor) || (!!actor && (access() > ACCESS.none || hasAccessBelowGroup(db, actor.user.id, group.id, today())));

/**
 * A group's wiki (ee; GitLab's EE::GroupPolicy): read in a public group by anyone, in an internal
 * one by signed-in non-external users, else by guests and up of the group (through an ancestor
 * too). Unlike read_group, membership of a subgroup or project below is not enough.
 */
const readGroupWiki: Rule<GroupRef> = (_db, actor, group, access) => visibleWithoutMembership(actor, group.visibility_level) || access() >= ACCESS.guest;

/** What may be done to a group and who may (GITLAB-NOTES 2.1). */
const GROUP_RULES = {
  read_group: readGroup,
  /** Epics (GITLAB-NOTES 2.5): whoever reads the group reads its epics. */
  read_epic: readGroup,
  create_projects: atLeast(ACCESS.maintainer),
  create_subgroup: atLeast(ACCESS.owner),
  admin_group_member: atLeast(ACCESS.owner),
  /** Settings, LDAP sync and LDAP group links. */
  admin_group: atLeast(ACCESS.owner),
  remove_group: atLeast(ACCESS.owner),
  /** Group labels and milestones: reporters of the group, as for a project's. */
  admin_group_label: atLeast(ACCESS.reporter),
  admin_group_milestone: atLeast(ACCESS.reporter),
  /** Group boards (ee), as a project's: readers of the group read them, reporters create boards and lists, owners and admins delete lists. */
  admin_group_board: atLeast(ACCESS.reporter),
  admin_group_list: atLeast(ACCESS.reporter),
  destroy_group_list: atLeast(ACCESS.owner),
  /** Reporters create and edit epics and their issue lists; owners (and admins) delete them, as GitLab's later destroy_epic. */
  admin_epic: atLeast(ACCESS.reporter),
  destroy_epic: atLeast(ACCESS.owner),
  /** Group access tokens (GitLab's read/create/destroy_resource_access_tokens on a group): owners. */
  manage_group_access_tokens: atLeast(ACCESS.owner),
  /** The group wiki (GitLab's read_wiki, create_wiki, admin_wiki on a group): developers write pages and attachments, maintainers delete pages. */
  read_group_wiki: readGroupWiki,
  /** Cloning the group wiki (GitLab's download_wiki_code): whoever reads it without membership, else reporters and up (guests read pages only). */
  download_group_wiki_code: (_db, actor, group, access) => visibleWithoutMembership(actor, group.visibility_level) || access() >= ACCESS.reporter,
  create_group_wiki: atLeast(ACCESS.developer),
  admin_group_wiki: atLeast(ACCESS.maintainer),
} satisfies Record<string, Rule<GroupRef>>;
export type GroupAbility = keyof typeof GROUP_RULES;

export const isProjectAbility = (ability: string): ability is ProjectAbility => ability in PROJECT_RULES;

/** Whether the actor may do `ability` to the project or group: the one question every guard and service asks. */
export function can(db: Db, actor: Actor | null, ability: ProjectAbility, project: ProjectRef): boolean;
export function can(db: Db, actor: Actor | null, ability: GroupAbility, group: GroupRef): boolean;
export function can(db: Db, actor: Actor | null, ability: ProjectAbility | GroupAbility, subject: ProjectRef | GroupRef): boolean {
  if (isProjectAbility(ability)) {
    const project = subject as ProjectRef;
    return PROJECT_RULES[ability](db, actor, project, () => projectAccess(db, actor, project));
  }
  return GROUP_RULES[ability](db, actor, subject, () => groupAccess(db, actor, subject));
}

/** What the merge request rules read of a merge request: who wrote it and who it is assigned to. */
export interface MergeRequestRef {
  readonly author_id: number;
  readonly assignee_id: number | null;
}

/** Whether the actor may read the merge request: read_merge_request on its target project (GitLab's MergeRequestPolicy). */
export function canReadMergeRequest(db: Db, actor: Actor | null, project: ProjectRef): boolean {
  return can(db, actor, 'read_merge_request', project);
}

/**
 * Whether the actor may edit the merge request (title, description, state, branches, flags):
 * update_merge_request on its target project (developers), or its author or assignee who can
 * read it, in a project that is not archived (GitLab's IssuablePolicy).
 */
export function canUpdateMergeRequest(db: Db, actor: Actor | null, project: ProjectRef, mergeRequest: MergeRequestRef): boolean {
  const access = accessOnce(db, actor, project);
  if (!PROJECT_RULES.read_merge_request(db, actor, project, access)) return false;
  if (PROJECT_RULES.update_merge_request(db, actor, project, access)) return true;
  return !!actor && !project.archived && (mergeRequest.author_id === actor.user.id || mergeRequest.assignee_id === actor.user.id);
}

/** Whether `user` (not the caller) may read the target project's merge requests: who may be assigned or listed as a participant. */
export function userCanReadMergeRequest(db: Db, user: UserRow, project: ProjectRef): boolean {
  if (user.state !== 'active' || user.ghost) return false;
  return canReadMergeRequest(db, actingAs(user), project);
}

/** Whether `user` is a member of the project's team (directly or through its groups), at any level: who may be named in an approval rule (GitLab's members_among). */
export function isProjectTeamMember(db: Db, user: UserRow, project: ProjectRef): boolean {
  return user.state === 'active' && !user.ghost && projectAccessLevel(db, user.id, project, today()) > ACCESS.none;
}

/** PUT .../reset_approvals: the bot user of a project or group access token who may update the project's merge requests (GitLab: bots only). */
export function canResetApprovals(db: Db, actor: Actor | null, project: ProjectRef): boolean {
  return !!actor && actor.user.user_type === 'project_bot' && can(db, actor, 'update_merge_request', project);
}

/** What the issue rules read of an issue: who wrote it, who it is assigned to, whether it is confidential. */
export interface IssueRef {
  readonly author_id: number;
  readonly confidential: number;
  readonly assigneeIds: readonly number[];
}

/**
 * A confidential issue is readable by reporters and above (read_confidential_issues), its author
 * and its assignees (GitLab's IssuePolicy); any other issue by whoever may read_issue.
 */
function readsIssue(db: Db, actor: Actor | null, project: ProjectRef, issue: IssueRef, access: () => number): boolean {
  if (!PROJECT_RULES.read_issue(db, actor, project, access)) return false;
  return issue.confidential === 0 || involves(actor, issue) || PROJECT_RULES.read_confidential_issues(db, actor, project, access);
}

const involves = (actor: Actor | null, issue: IssueRef): boolean => !!actor && (issue.author_id === actor.user.id || issue.assigneeIds.includes(actor.user.id));

/** The actor's access level on the project, read at most once however many rules ask. */
function accessOnce(db: Db, actor: Actor | null, project: ProjectRef): () => number {
  let level: number | undefined;
  return () => (level ??= projectAccess(db, actor, project));
}

/**
 * What an event shows, for the rule that decides who sees it: a push or a comment on a commit
 * shows code, an issue event or a comment on an issue shows the issue, a merge request event
 * (or a comment on one) shows its diff; anything else (a project created, a member joining or
 * leaving, a milestone) shows only the project.
 */
export type EventSubject = { kind: 'code' } | { kind: 'issue'; issue: IssueRef } | { kind: 'merge_request' } | { kind: 'project' };

/**
 * Whether the actor may see an event of a project they can read (GitLab's Event#visible_to_user?):
 * code needs download_code, an issue the issue rule (a confidential issue's events stay with
 * those who may read it), a merge request what reading merge requests needs (GitLab grants
 * read_merge_request with download_code). `access` reads the actor's level on the project, which
 * a list computes once per page.
 */
export function canReadProjectEvent(db: Db, actor: Actor | null, project: ProjectRef, subject: EventSubject, access: () => number): boolean {
  switch (subject.kind) {
    case 'code':
    case 'merge_request':
      return PROJECT_RULES.download_code(db, actor, project, access);
    case 'issue':
      return readsIssue(db, actor, project, subject.issue, access);
    case 'project':
      return PROJECT_RULES.read_project(db, actor, project, access);
  }
}

/** A user may create projects in their own namespace, admins in any; a group needs create_projects there. */
export function canCreateProjectsIn(db: Db, actor: Actor, namespace: GroupRef & { kind: string; owner_id: number | null }): boolean {
  if (namespace.kind === 'group') return can(db, actor, 'create_projects', namespace);
  return isAdmin(actor) || namespace.owner_id === actor.user.id;
}


/**
 * Whether the actor may read the issue: read_issue on its project and, for a confidential issue,
 * reporter access or being its author or an assignee (GitLab's IssuePolicy). Anyone else gets a
 * 404, never a 403, so a confidential issue does not show that it exists.
 */
export function canReadIssue(db: Db, actor: Actor | null, project: ProjectRef, issue: IssueRef): boolean {
  return readsIssue(db, actor, project, issue, accessOnce(db, actor, project));
}

/**
 * Whether the actor may edit the issue (title, description, state): admin_issue on its project, or
 * being its author or an assignee who may read it, in a project that is not archived. Labels,
 * milestone, assignees, due date, weight, confidentiality and locking need admin_issue as well.
 */
export function canUpdateIssue(db: Db, actor: Actor | null, project: ProjectRef, issue: IssueRef): boolean {
  const access = accessOnce(db, actor, project);
  if (!readsIssue(db, actor, project, issue, access)) return false;
  return PROJECT_RULES.admin_issue(db, actor, project, access) || (involves(actor, issue) && !project.archived);
}

/**
 * Whether the actor may link the issue to others or unlink it (GitLab's admin_issue_link on the
 * issue): read it, and be a member of its project (guest and up).
 */
export function canLinkIssue(db: Db, actor: Actor | null, project: ProjectRef, issue: IssueRef): boolean {
  const access = accessOnce(db, actor, project);
  return readsIssue(db, actor, project, issue, access) && PROJECT_RULES.admin_issue_link(db, actor, project, access);
}

/** Whether `user` (not the caller) may read the issue: who of its participants GitLab lists. */
export function userCanReadIssue(db: Db, user: UserRow, project: ProjectRef, issue: IssueRef): boolean {
  if (user.state !== 'active' || user.ghost) return false;
  return canReadIssue(db, actingAs(user), project, issue);
}

/** A WHERE condition and its named parameters. */
export interface SqlCondition {
  readonly sql: string;
  readonly params: Record<string, unknown>;
}

/** Confidential issues `i` of one project the actor reads: all of them for reporters, else their own and those assigned to them. */
function confidentialCondition(actor: Actor | null, reporterProjects: string | null): string {
  if (!actor) return 'i.confidential = 0';
  const own = 'i.author_id = @reader OR EXISTS (SELECT 1 FROM issue_assignees ra WHERE ra.issue_id = i.id AND ra.user_id = @reader)';
  return `(i.confidential = 0 OR ${own}${reporterProjects ? ` OR i.project_id IN (${reporterProjects})` : ''})`;
}

/**
 * canReadIssue for every issue `i` of one project the actor may read issues of (the list's own
 * guard checked read_issue), as SQL: nothing to add for reporters and above.
 */
export function readableIssuesInProject(db: Db, actor: Actor | null, project: ProjectRef): SqlCondition {
  if (can(db, actor, 'read_confidential_issues', project)) return { sql: '1', params: {} };
  return { sql: confidentialCondition(actor, null), params: actor ? { reader: actor.user.id } : {} };
}

/**
 * canReadIssue for issues `i` of any project `p` (joined on i.project_id), as SQL: projects with
 * the tracker on that the actor may read (public ones, internal ones for signed-in users who are
 * not external, and those they are authorized on; all for admins), and the confidential rule,
 * with reporter access counted per project.
 */
export function readableIssuesAnywhere(actor: Actor | null): SqlCondition {
  if (isAdmin(actor)) return { sql: 'p.issues_enabled = 1', params: {} };
  if (!actor) return { sql: `p.issues_enabled = 1 AND p.visibility_level = ${VISIBILITY.public} AND i.confidential = 0`, params: {} };
  const minVisible = actor.user.external ? VISIBILITY.public : VISIBILITY.internal;
  return {
    sql:
      `p.issues_enabled = 1 AND (p.visibility_level >= ${minVisible} OR p.id IN (${AUTHORIZED_PROJECT_IDS})) ` +
      `AND ${confidentialCondition(actor, projectIdsWithAccessAtLeast('@reporter'))}`,
    params: { user: actor.user.id, reader: actor.user.id, today: today(), reporter: ACCESS.reporter },
  };
}

/**
 * canReadMergeRequest for merge requests of any project `p` (joined on their target project), as
 * SQL: projects with merge requests on that the actor may download from (public ones, internal ones
 * for signed-in users who are not external, and those where they are reporters or above; all for
 * admins).
 */
export function readableMergeRequestsAnywhere(actor: Actor | null): SqlCondition {
  if (isAdmin(actor)) return { sql: 'p.merge_requests_enabled = 1', params: {} };
  if (!actor) return { sql: `p.merge_requests_enabled = 1 AND p.visibility_level = ${VISIBILITY.public}`, params: {} };
  const minVisible = actor.user.external ? VISIBILITY.public : VISIBILITY.internal;
  return {
    sql: `p.merge_requests_enabled = 1 AND (p.visibility_level >= ${minVisible} OR p.id IN (${projectIdsWithAccessAtLeast('@reporter')}))`,
    params: { user: actor.user.id, today: today(), reporter: ACCESS.reporter },
  };
}

/**
 * read_project for projects `p` anywhere, as SQL: public ones, internal ones for signed-in users
 * who are not external, and those they are authorized on; all for admins (as listProjects reads).
 */
export function readableProjectsAnywhere(actor: Actor | null): SqlCondition {
  if (isAdmin(actor)) return { sql: '1', params: {} };
  if (!actor) return { sql: `p.visibility_level = ${VISIBILITY.public}`, params: {} };
  const minVisible = actor.user.external ? VISIBILITY.public : VISIBILITY.internal;
  return { sql: `(p.visibility_level >= ${minVisible} OR p.id IN (${AUTHORIZED_PROJECT_IDS}))`, params: { user: actor.user.id, today: today() } };
}

/** read_group for groups `g` anywhere, as SQL: by visibility as for projects, and the groups the user belongs to (through an ancestor too). */
export function readableGroupsAnywhere(actor: Actor | null): SqlCondition {
  if (isAdmin(actor)) return { sql: '1', params: {} };
  if (!actor) return { sql: `g.visibility_level = ${VISIBILITY.public}`, params: {} };
  const minVisible = actor.user.external ? VISIBILITY.public : VISIBILITY.internal;
  return { sql: `(g.visibility_level >= ${minVisible} OR g.id IN (${MEMBER_GROUP_IDS}))`, params: { user: actor.user.id, today: today() } };
}

/** What the note rules read of a noteable (an issue, later a merge request): whether its discussion is locked. */
export interface NoteableRef {
  readonly discussion_locked: number | null;
}

/** What the note rules read of a note. */
export interface NoteRef {
  readonly author_id: number;
  readonly system: number;
}

/**
 * A locked discussion (`discussion_locked`) takes comments, edits and award emoji from project
 * members only (GitLab's IssuablePolicy: `locked & ~is_project_member`); admins count as members.
 */
const lockedOut = (noteable: NoteableRef, access: () => number): boolean => noteable.discussion_locked === 1 && access() <= ACCESS.none;

/** Where a noteable lives: a project (issues), or a group (epics, read by whoever may read_epic). */
export type NoteHome = { readonly project: ProjectRef } | { readonly group: GroupRef };

/**
 * The note rules of one home: whether it takes notes from readers (create_note, award_emoji: an
 * archived project takes none), whether the actor may edit anyone's notes there (admin_note:
 * maintainers), and the actor's access level there, read at most once.
 */
function noteRulesOf(db: Db, actor: Actor | null, home: NoteHome) {
  if ('project' in home) {
    const { project } = home;
    const access = accessOnce(db, actor, project);
    return {
      access,
      archived: project.archived === 1,
      comment: () => PROJECT_RULES.create_note(db, actor, project, access),
      award: () => PROJECT_RULES.award_emoji(db, actor, project, access),
      adminNotes: () => PROJECT_RULES.admin_note(db, actor, project, access),
    };
  }
  const { group } = home;
  let level: number | undefined;
  const access = () => (level ??= groupAccess(db, actor, group));
  const reads = () => GROUP_RULES.read_epic(db, actor, group, access);
  return { access, archived: false, comment: reads, award: reads, adminNotes: () => access() >= ACCESS.maintainer };
}

/**
 * Whether the actor may comment on a noteable they can read: create_note where it lives (an
 * epic's readers), and membership when its discussion is locked.
 */
export function canCreateNote(db: Db, actor: Actor | null, home: NoteHome, noteable: NoteableRef): boolean {
  const rules = noteRulesOf(db, actor, home);
  return !!actor && rules.comment() && !lockedOut(noteable, rules.access);
}

/**
 * Whether the actor may edit or delete a note of a noteable they can read (GitLab's NotePolicy
 * admin_note): never a system note nor in an archived project; its author, or admin_note where it
 * lives (maintainers); on a locked discussion, members only.
 */
export function canAdminNote(db: Db, actor: Actor | null, home: NoteHome, noteable: NoteableRef, note: NoteRef): boolean {
  const rules = noteRulesOf(db, actor, home);
  if (!actor || note.system === 1 || rules.archived) return false;
  if (lockedOut(noteable, rules.access)) return false;
  return note.author_id === actor.user.id || rules.adminNotes();
}

/**
 * Whether the actor may award emoji to a noteable they can read, or to one of its notes: award_emoji
 * where it lives, and membership when its discussion is locked. A system note takes no award.
 */
export function canAwardEmoji(db: Db, actor: Actor | null, home: NoteHome, noteable: NoteableRef, note: NoteRef | null): boolean {
  if (!actor || note?.system === 1) return false;
  const rules = noteRulesOf(db, actor, home);
  return rules.award() && !lockedOut(noteable, rules.access);
}

/**
 * Whether the actor may resolve or unresolve a note of a noteable they can read (GitLab's
 * resolve_note): its author, the noteable's author, or developers and up; on a locked discussion,
 * members only.
 */
export function canResolveNote(db: Db, actor: Actor | null, home: NoteHome, noteable: NoteableRef & { readonly author_id: number }, note: NoteRef): boolean {
  const rules = noteRulesOf(db, actor, home);
  if (!actor || rules.archived) return false;
  if (lockedOut(noteable, rules.access)) return false;
  return note.author_id === actor.user.id || noteable.author_id === actor.user.id || rules.access() >= ACCESS.developer;
}

/** Backdating a note (`created_at` on create): owners and admins of its project or group, as GitLab's set_note_created_at. */
export function canSetNoteCreatedAt(db: Db, actor: Actor | null, home: NoteHome): boolean {
  return noteRulesOf(db, actor, home).access() >= ACCESS.owner;
}

/**
 * What the actor's project access reaches among protected-ref access levels (GitLab's
 * ProtectedRefAccess#check_access): admins every level, `0` (no one) nobody else, and otherwise
 * developers and up who may push code, at or above the level. Reads the access level once, so a
 * push checks every protection of a project for the price of one membership query.
 */
export function protectedRefLevels(db: Db, actor: Actor | null, project: ProjectRef): { reaches(level: number): boolean; maintainer: boolean } {
  const access = accessOnce(db, actor, project);
  const admin = isAdmin(actor);
  return {
    reaches: (level) => admin || (level > ACCESS.none && PROJECT_RULES.push_code(db, actor, project, access) && access() >= level),
    maintainer: PROJECT_RULES.admin_project(db, actor, project, access),
  };
}

/** What the deploy key rules read of a key: who added it and whether it is public. */
export interface DeployKeyRef {
  readonly id: number;
  readonly user_id: number | null;
  readonly public: number;
}

/**
 * Whether the actor may enable a deploy key in a project they administer (GitLab's
 * accessible_deploy_keys): a public key, or one enabled in a project where they are a maintainer or
 * above; admins any key.
 */
export function canUseDeployKey(db: Db, actor: Actor, key: DeployKeyRef): boolean {
  if (isAdmin(actor) || key.public === 1) return true;
  return isDeployKeyInProjects(db, key.id, projectIdsWithAccessAtLeast('@maintainer'), { user: actor.user.id, today: today(), maintainer: ACCESS.maintainer });
}

/** Whether the actor may retitle a deploy key (GitLab's update_deploy_key_title): admins, or whoever added it while it is not public. */
export function canRetitleDeployKey(actor: Actor, key: DeployKeyRef): boolean {
  return isAdmin(actor) || (key.public === 0 && key.user_id === actor.user.id);
}

/** What the snippet rules read of a snippet. */
export interface SnippetRef {
  readonly author_id: number;
  readonly project_id: number | null;
  readonly visibility_level: number;
}

/** A project snippet's project: the snippets feature switch besides what project rules read. */
export type SnippetProjectRef = ProjectRef & { readonly snippets_enabled: number };

/**
 * GitLab's snippet policies (PersonalSnippetPolicy, ProjectSnippetPolicy): admins read every
 * snippet; a personal one is read by its author and by whoever its visibility lets see it; a
 * project one needs the project's snippets on and the project readable, then its author, its
 * visibility, or (a private one) membership in the project.
 */
export function canReadSnippet(db: Db, actor: Actor | null, snippet: SnippetRef, project: SnippetProjectRef | null): boolean {
  if (isAdmin(actor)) return true;
  const author = !!actor && snippet.author_id === actor.user.id;
  if (!project) return author || visibleWithoutMembership(actor, snippet.visibility_level);
  if (project.snippets_enabled !== 1 || !can(db, actor, 'read_project', project)) return false;
  return author || visibleWithoutMembership(actor, snippet.visibility_level) || projectAccess(db, actor, project) >= ACCESS.guest;
}

/** Personal snippets: signed-in users who are not external (GitLab's create_snippet of the global policy). */
export function canCreatePersonalSnippet(actor: Actor | null): boolean {
  return !!actor && (isAdmin(actor) || actor.user.external === 0);
}

/** Project snippets: reporters and up of a project with snippets on that is not archived. */
export function canCreateProjectSnippet(db: Db, actor: Actor | null, project: SnippetProjectRef): boolean {
  return project.snippets_enabled === 1 && !project.archived && projectAccess(db, actor, project) >= ACCESS.reporter;
}

/**
 * update_snippet and admin_snippet (editing, deleting, pushing to its repository): a personal
 * snippet's author and admins; a project snippet's author while a reporter of the project, and
 * maintainers, in a project with snippets on that is not archived.
 */
export function canUpdateSnippet(db: Db, actor: Actor | null, snippet: SnippetRef, project: SnippetProjectRef | null): boolean {
  if (!actor) return false;
  if (!project) return isAdmin(actor) || snippet.author_id === actor.user.id;
  if (project.snippets_enabled !== 1 || project.archived) return false;
  const access = projectAccess(db, actor, project);
  return access >= ACCESS.maintainer || (snippet.author_id === actor.user.id && access >= ACCESS.reporter);
}

/** canReadSnippet for snippets `s` left-joined to their project `p`, as SQL. */
export function readableSnippets(actor: Actor | null): SqlCondition {
  if (isAdmin(actor)) return { sql: '1', params: {} };
  const projectOn = 's.project_id IS NOT NULL AND p.snippets_enabled = 1';
  if (!actor) return { sql: `s.visibility_level = ${VISIBILITY.public} AND (s.project_id IS NULL OR (${projectOn} AND p.visibility_level = ${VISIBILITY.public}))`, params: {} };
  const min = lowestVisibleWithoutMembership(actor);
  const member = `p.id IN (${AUTHORIZED_PROJECT_IDS})`;
  return {
    sql:
      `(s.project_id IS NULL AND (s.author_id = @user OR s.visibility_level >= ${min})) OR ` +
      `(${projectOn} AND (p.visibility_level >= ${min} OR ${member}) AND (s.author_id = @user OR s.visibility_level >= ${min} OR ${member}))`,
    params: { user: actor.user.id, today: today() },
  };
}

/**
 * GitLab's request_access: the group or project takes access requests (request_access_enabled) and
 * the actor has no access to it through a membership yet (admins have all access).
 */
export function canRequestAccess(db: Db, actor: Actor, source: { kind: 'group'; group: GroupRef & { request_access_enabled: number } } | { kind: 'project'; project: ProjectRef & { request_access_enabled: number } }): boolean {
  if (source.kind === 'group') return source.group.request_access_enabled === 1 && groupAccess(db, actor, source.group) === ACCESS.none;
  return source.project.request_access_enabled === 1 && projectAccess(db, actor, source.project) === ACCESS.none;
}
