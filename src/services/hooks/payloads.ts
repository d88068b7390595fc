/**
 * Webhook payloads as GitLab 10.x builds them (Gitlab::DataBuilder), as pure functions of data the
 * caller has already loaded, so the code that makes an event (a push, a merge) builds its payload
 * and hands it to fireProjectHooks.
 */
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
