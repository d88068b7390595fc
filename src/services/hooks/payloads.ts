/**
 * Webhook payloads as GitLab 10.x builds them (Gitlab::DataBuilder), as pure functions of data the
 * caller has already loaded, so the code that makes an event (a push, a merge) builds its payload
 * and hands it to fireProjectHooks.
 */
import { humanDuration } from '../../entities/time-stats.js';
import { BLANK_SHA } from '../../git/object-names.js';

/** GitLab pushes at most this many commits (the newest) in a push payload; total_commits_count has them all. */
export const PUSH_COMMITS_LIMIT = 20;

/** The user who acted, as the caller resolved it (avatar_url absolute or null). */
export interface HookUser {
  readonly id: number;
  readonly name: string;
  readonly username: string;
  readonly email: string;
  readonly avatar_url: string | null;
}

/** The project as hooks describe it (Project#hook_attrs); the URLs are those of the project entity. */
export interface HookProject {
  readonly id: number;
  readonly name: string;
  readonly description: string | null;
  readonly web_url: string;
  readonly avatar_url: string | null;
  readonly git_ssh_url: string;
  readonly git_http_url: string;
  /** The namespace's name (not its path). */
  readonly namespace: string;
  readonly visibility_level: number;
  readonly path_with_namespace: string;
  readonly default_branch: string | null;
  readonly ci_config_path: string | null;
}

export interface HookCommit {
  readonly id: string;
  readonly message: string;
  /** The committed date, ISO 8601 with its offset. */
  readonly timestamp: string;
  readonly author: { readonly name: string; readonly email: string };
  readonly added: readonly string[];
  readonly modified: readonly string[];
  readonly removed: readonly string[];
}

export interface PushInput {
  readonly user: HookUser;
  readonly project: HookProject;
  /** The ref's old and new SHA; BLANK_SHA for a created or deleted ref. */
  readonly before: string;
  readonly after: string;
  /** The full ref name: `refs/heads/master`, `refs/tags/v1.0`. */
  readonly ref: string;
  /** The commits pushed, oldest first; only the newest PUSH_COMMITS_LIMIT go in the payload. */
  readonly commits: readonly HookCommit[];
  /** Defaults to commits.length; set it when the caller did not load every commit. */
  readonly totalCommitsCount?: number;
  /** The annotated tag's message, if any. */
  readonly message?: string | null;
}

/** Project#hook_attrs with its backward-compatible aliases (homepage, url, ssh_url, http_url). */
function hookProjectAttrs(project: HookProject) {
  return {
    ...project,
    homepage: project.web_url,
    url: project.git_ssh_url,
    ssh_url: project.git_ssh_url,
    http_url: project.git_http_url,
  };
}

function pushData(kind: 'push' | 'tag_push', input: PushInput) {
  const project = hookProjectAttrs(input.project);
  return {
    object_kind: kind,
    event_name: kind,
    before: input.before,
    after: input.after,
    ref: input.ref,
    // The commit the ref now points at; none when it was deleted.
    checkout_sha: input.after === BLANK_SHA ? null : input.after,
    message: input.message ?? null,
    user_id: input.user.id,
    user_name: input.user.name,
    user_username: input.user.username,
    user_email: input.user.email,
    user_avatar: input.user.avatar_url,
    project_id: input.project.id,
    project,
    commits: input.commits.slice(-PUSH_COMMITS_LIMIT).map((commit) => ({
      id: commit.id,
      message: commit.message,
      timestamp: commit.timestamp,
      url: `${input.project.web_url}/commit/${commit.id}`,
      author: { name: commit.author.name, email: commit.author.email },
      added: [...commit.added],
      modified: [...commit.modified],
      removed: [...commit.removed],
    })),
    total_commits_count: input.totalCommitsCount ?? input.commits.length,
    // Deprecated in GitLab but still sent: older receivers read it.
    repository: {
      name: project.name,
      url: project.url,
      description: project.description,
      homepage: project.homepage,
      git_http_url: project.git_http_url,
      git_ssh_url: project.git_ssh_url,
      visibility_level: project.visibility_level,
    },
  };
}

/** The "Push Hook" payload of a branch push (object_kind `push`). */
export function pushPayload(input: PushInput) {
  return pushData('push', input);
}

/** The "Tag Push Hook" payload (object_kind `tag_push`); GitLab sends the tag's commit, if any, in `commits`. */
export function tagPushPayload(input: PushInput) {
  return pushData('tag_push', input);
}

/** A label as hook payloads describe it (Label#hook_attrs). */
export interface HookLabel {
  readonly id: number;
  readonly title: string;
  readonly color: string;
  readonly project_id: number | null;
  readonly group_id: number | null;
  readonly description: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** The issue as a hook sees it: its row's attributes, with its URL and assignees. */
export interface HookIssue {
  readonly id: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string | null;
  readonly state: 'opened' | 'closed';
  readonly author_id: number;
  readonly project_id: number;
  readonly milestone_id: number | null;
  readonly confidential: number;
  readonly discussion_locked: number | null;
  readonly due_date: string | null;
  readonly weight: number | null;
  readonly relative_position: number | null;
  readonly time_estimate: number;
  readonly total_time_spent: number;
  readonly closed_at: string | null;
  readonly closed_by_id: number | null;
  readonly moved_to_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface IssueHookInput {
  readonly user: HookUser;
  readonly project: HookProject;
  readonly issue: HookIssue;
  /** `open`, `close`, `reopen` or `update` (GitLab's IssueBaseService#execute_hooks action). */
  readonly action: 'open' | 'close' | 'reopen' | 'update';
  readonly labels: readonly HookLabel[];
  readonly assignees: readonly HookUser[];
  /** Each changed attribute as [previous, current]; labels and assignees as lists of their hook attributes. */
  readonly changes: Readonly<Record<string, readonly [unknown, unknown]>>;
}

const hookLabel = (label: HookLabel) => ({ ...label, template: false, type: label.group_id !== null ? 'GroupLabel' : 'ProjectLabel' });
const hookUserAttrs = (user: HookUser) => ({ id: user.id, name: user.name, username: user.username, avatar_url: user.avatar_url, email: user.email });

/** Issue#hook_attrs: the row's attributes with its URL, human time strings, assignees and labels. */
function issueHookAttrs(issue: HookIssue, project: HookProject, labels: readonly HookLabel[], assignees: readonly HookUser[]) {
  return {
    ...issue,
    confidential: issue.confidential === 1,
    discussion_locked: issue.discussion_locked === null ? null : issue.discussion_locked === 1,
    human_time_estimate: humanDuration(issue.time_estimate),
    human_total_time_spent: humanDuration(issue.total_time_spent),
    assignee_ids: assignees.map((user) => user.id),
    assignee_id: assignees[0]?.id ?? null,
    labels: labels.map(hookLabel),
    url: `${project.web_url}/issues/${issue.iid}`,
  };
}

/**
 * The "Issue Hook" payload (Gitlab::HookData::IssueBuilder): object_kind `issue`, event_type
 * `issue` or `confidential_issue`, the issue's attributes with its URL, action and human time
 * strings, its labels and assignees, and what the write changed as {previous, current}.
 */
export function issuePayload(input: IssueHookInput) {
  const { issue } = input;
  const project = hookProjectAttrs(input.project);
  const changes: Record<string, { previous: unknown; current: unknown }> = {};
  for (const [key, [previous, current]] of Object.entries(input.changes)) changes[key] = { previous, current };
  const payload = {
    object_kind: 'issue',
    event_type: issue.confidential ? 'confidential_issue' : 'issue',
    user: hookUserAttrs(input.user),
    project,
    object_attributes: { ...issueHookAttrs(issue, input.project, input.labels, input.assignees), action: input.action },
    labels: input.labels.map(hookLabel),
    changes,
    repository: { name: project.name, url: project.url, description: project.description, homepage: project.homepage },
  };
  if (!input.assignees.length) return payload;
  return { ...payload, assignees: input.assignees.map(hookUserAttrs), assignee: hookUserAttrs(input.assignees[0]) };
}

/** A comment as a note hook describes it (Note#hook_attrs). */
export interface HookNote {
  readonly id: number;
  readonly body: string;
  readonly author_id: number;
  readonly project_id: number | null;
  readonly noteable_id: number | null;
  readonly commit_id: string | null;
  readonly system: number;
  readonly type: string | null;
  readonly discussion_id: string;
  readonly resolved_at: string | null;
  readonly resolved_by_id: number | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface IssueNoteHookInput {
  readonly user: HookUser;
  readonly project: HookProject;
  readonly note: HookNote;
  readonly issue: HookIssue;
  readonly labels: readonly HookLabel[];
  readonly assignees: readonly HookUser[];
}

/**
 * The "Note Hook" payload of a comment on an issue (Gitlab::DataBuilder::Note): object_kind and
 * event_type `note`, the note's attributes with its URL (the issue's, anchored at the note), and
 * the issue's hook attributes under `issue`.
 */
export function issueNotePayload(input: IssueNoteHookInput) {
  const { note, issue } = input;
  const url = `${input.project.web_url}/issues/${issue.iid}#note_${note.id}`;
  return notePayload(input.user, input.project, note, { noteable_type: 'Issue', url }, { issue: issueHookAttrs(issue, input.project, input.labels, input.assignees) });
}

/**
 * What every "Note Hook" payload shares (Gitlab::DataBuilder::Note): object_kind and event_type
 * `note`, the note's attributes with its noteable's type and URL, the project and repository; the
 * noteable's hook attributes go under its own key (`issue`, `merge_request`, `commit`).
 */
function notePayload(user: HookUser, hookProject: HookProject, note: HookNote, attributes: { noteable_type: string; url: string; position?: unknown }, noteable: Record<string, unknown>) {
  const project = hookProjectAttrs(hookProject);
  const { body, ...attrs } = note;
  const { url, ...kind } = attributes;
  return {
    object_kind: 'note',
    event_type: 'note',
    user: hookUserAttrs(user),
    project_id: hookProject.id,
    project,
    object_attributes: { ...attrs, note: body, ...kind, system: note.system === 1, attachment: null, line_code: null, st_diff: null, url },
    repository: { name: project.name, url: project.url, description: project.description, homepage: project.homepage },
    ...noteable,
  };
}

/** The merge request as a hook sees it: the attributes GitLab's hook_attrs keeps (SAFE_HOOK_ATTRIBUTES). */
export interface HookMergeRequest {
  readonly id: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string | null;
  readonly state: string;
  readonly author_id: number;
  readonly assignee_id: number | null;
  readonly milestone_id: number | null;
  readonly source_project_id: number | null;
  readonly target_project_id: number;
  readonly source_branch: string;
  readonly target_branch: string;
  readonly merge_status: string;
  readonly merge_error: string | null;
  readonly merge_commit_sha: string | null;
  readonly merge_when_pipeline_succeeds: number;
  readonly merge_user_id: number | null;
  readonly merge_params: string | null;
  readonly head_pipeline_id: number | null;
  readonly last_edited_at: string | null;
  readonly last_edited_by_id: number | null;
  readonly time_estimate: number;
  readonly total_time_spent: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface MergeRequestHookInput {
  readonly user: HookUser;
  /** The target project. */
  readonly project: HookProject;
  /** The source project (a fork), or the target for a merge request within one project; null once the fork is gone. */
  readonly source: HookProject | null;
  readonly mergeRequest: HookMergeRequest;
  readonly workInProgress: boolean;
  /** The source head commit, when known. */
  readonly lastCommit: HookCommit | null;
  readonly labels: readonly HookLabel[];
  readonly assignee: HookUser | null;
}

/** MergeRequest#hook_attrs: the safe attributes with its URL, source and target projects, last commit, work in progress flag and human times. */
function mergeRequestHookAttrs(input: MergeRequestHookInput) {
  const { mergeRequest, project } = input;
  const lastCommit = input.lastCommit;
  return {
    ...mergeRequest,
    merge_when_pipeline_succeeds: mergeRequest.merge_when_pipeline_succeeds === 1,
    merge_params: mergeRequest.merge_params ? (JSON.parse(mergeRequest.merge_params) as unknown) : {},
    url: `${project.web_url}/merge_requests/${mergeRequest.iid}`,
    source: input.source ? hookProjectAttrs(input.source) : null,
    target: hookProjectAttrs(project),
    last_commit: lastCommit
      ? { id: lastCommit.id, message: lastCommit.message, timestamp: lastCommit.timestamp, url: `${(input.source ?? project).web_url}/commit/${lastCommit.id}`, author: lastCommit.author }
      : null,
    work_in_progress: input.workInProgress,
    human_time_estimate: humanDuration(mergeRequest.time_estimate),
    human_total_time_spent: humanDuration(mergeRequest.total_time_spent),
    assignee_ids: input.assignee ? [input.assignee.id] : [],
  };
}

/**
 * The "Merge Request Hook" payload (Gitlab::HookData::MergeRequestBuilder): object_kind and
 * event_type `merge_request`, the merge request's hook attributes with `action` (open, update,
 * close, reopen, merge, approved...) and, for a push, `oldrev`; its labels, what the write changed
 * as {previous, current}, and the assignee when there is one.
 */
export function mergeRequestPayload(input: MergeRequestHookInput, action: string, changes: Readonly<Record<string, readonly [unknown, unknown]>>, oldrev: string | null) {
  const project = hookProjectAttrs(input.project);
  const changed: Record<string, { previous: unknown; current: unknown }> = {};
  for (const [key, [previous, current]] of Object.entries(changes)) changed[key] = { previous, current };
  const payload = {
    object_kind: 'merge_request',
    event_type: 'merge_request',
    user: hookUserAttrs(input.user),
    project,
    object_attributes: { ...mergeRequestHookAttrs(input), action, ...(oldrev ? { oldrev } : {}) },
    labels: input.labels.map(hookLabel),
    changes: changed,
    repository: { name: project.name, url: project.url, description: project.description, homepage: project.homepage },
  };
  return input.assignee ? { ...payload, assignees: [hookUserAttrs(input.assignee)], assignee: hookUserAttrs(input.assignee) } : payload;
}

/** The "Note Hook" payload of a comment on a merge request: the note's attributes with its URL, and the merge request's hook attributes under `merge_request`. */
export function mergeRequestNotePayload(input: MergeRequestHookInput, note: HookNote, position: unknown) {
  const url = `${input.project.web_url}/merge_requests/${input.mergeRequest.iid}#note_${note.id}`;
  return notePayload(input.user, input.project, note, { noteable_type: 'MergeRequest', position, url }, { merge_request: mergeRequestHookAttrs(input) });
}

export interface CommitNoteHookInput {
  readonly user: HookUser;
  readonly project: HookProject;
  readonly note: HookNote;
  readonly commit: Pick<HookCommit, 'id' | 'message' | 'timestamp' | 'author'>;
}

/**
 * The "Note Hook" payload of a comment on a commit (Gitlab::DataBuilder::Note): the note's
 * attributes with its URL (the commit's, anchored at the note) and the commit's hook attributes
 * (Commit#hook_attrs without changed files) under `commit`.
 */
export function commitNotePayload(input: CommitNoteHookInput) {
  const { note, commit } = input;
  const commitUrl = `${input.project.web_url}/commit/${commit.id}`;
  return notePayload(input.user, input.project, note, { noteable_type: 'Commit', url: `${commitUrl}#note_${note.id}` }, {
    commit: { id: commit.id, message: commit.message, timestamp: commit.timestamp, url: commitUrl, author: { name: commit.author.name, email: commit.author.email } },
  });
}
