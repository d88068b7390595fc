import path from 'node:path';
import { inTransaction } from '../../db/connection.js';
import { findProjectById, updateProjectRow, type ProjectRow } from '../../db/tables/projects.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { countLog, logWithChanges, readCommit, type CommitWithChanges } from '../../git/commit-log.js';
import { changedPaths, type PathChange } from '../../git/diff.js';
import { annotatedTagMessage } from '../../git/refs.js';
import { BLANK_SHA, isBlankSha } from '../../git/object-names.js';
import { readBlob } from '../../git/tree.js';
import { repositoryPath, wikiRepositoryPath } from '../../storage/layout.js';
import type { RefUpdate } from '../../git/smart-http.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { nowIso } from '../../storage/clock.js';
import { fireProjectHooks } from '../hooks/fire.js';
import { fireSystemHooks, repositoryUpdatePayload } from '../hooks/system-fire.js';
import { hookProjectOf, hookUserOf } from '../hooks/subjects.js';
import { recordPushEvents } from '../issuables/push-events.js';
import { protectDefaultBranch } from './protected-refs.js';
import { refreshMergeRequestsAfterPush } from '../merge-requests/heads.js';
import { scheduleProjectMirrors } from '../remote-mirrors/mirrors.js';
import { PUSH_COMMITS_LIMIT, pushPayload, tagPushPayload, type HookCommit } from '../hooks/payloads.js';

/**
 * What follows a push that changed refs (GitLab's PostReceive): the project's activity time, the
 * push events the activity lists show, the push / tag push hooks, one per ref, after the Geo
 * repository event, and the project's push mirrors scheduled; then the merge requests from and into each pushed branch (new diff versions,
 * refs/merge-requests/<iid>/head, merge_status back to unchecked). Git has already moved the refs:
 * nothing here can refuse.
 */
export async function afterPush(ctx: SiteContext, project: ProjectRow, actor: Actor, updates: readonly RefUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  // First, so no failure in the hooks' work below can lose the Geo event of a push that landed.
  await recordRepositoryChange(ctx.db, ctx.config.dataDir, project.id, 'repository', 'updated');
  const repository = repositoryPath(ctx.config.dataDir, project.id);
  // The git reads happen before the transaction: it holds no lock while git runs.
  const events: { event: 'push' | 'tag_push'; update: RefUpdate; commits: HookCommit[]; total: number; message: string | null }[] = [];
  for (const update of updates) {
    if (update.ref.startsWith('refs/heads/')) {
      const { commits, total } = await pushedCommits(repository, update);
      events.push({ event: 'push', update, commits, total, message: null });
    } else if (update.ref.startsWith('refs/tags/')) {
      const commits = isBlankSha(update.after) ? [] : hookCommits(await logWithChanges(repository, [`${update.after}^{commit}`], 1));
      const message = isBlankSha(update.after) ? null : await annotatedTagMessage(repository, update.after);
      events.push({ event: 'tag_push', update, commits, total: commits.length, message });
    }
  }
  inTransaction(ctx.db, () => {
    const now = nowIso();
    updateProjectRow(ctx.db, project.id, { last_activity_at: now });
    recordPushEvents(
      ctx.db,
      actor.user.id,
      project.id,
      events.map(({ update, commits, total }) => ({ ...update, commitCount: total, headMessage: commits.at(-1)?.message ?? null })),
      now,
    );
    // The row as it is now: a rename during the push shows in the payload.
    const current = findProjectById(ctx.db, project.id) ?? project;
    // The default branch's first push protects it (GitLab's default branch protection).
    const defaultRef = `refs/heads/${current.default_branch}`;
    if (updates.some((update) => update.ref === defaultRef && isBlankSha(update.before) && !isBlankSha(update.after))) {
      protectDefaultBranch(ctx.db, project.id, current.default_branch);
    }
    const hookProject = hookProjectOf(ctx, current);
    const user = hookUserOf(ctx, actor.user);
    for (const { event, update, commits, total, message } of events) {
      const input = { user, project: hookProject, before: normalized(update.before), after: normalized(update.after), ref: update.ref, commits, totalCommitsCount: total, message };
      const payload = event === 'push' ? pushPayload(input) : tagPushPayload(input);
      fireProjectHooks(ctx, current, event, payload);
      fireSystemHooks(ctx, event, payload);
    }
    const changes = updates.map((update) => ({ before: normalized(update.before), after: normalized(update.after), ref: update.ref }));
    fireSystemHooks(ctx, 'repository_update', repositoryUpdatePayload(user, hookProject, changes));
    scheduleProjectMirrors(ctx.db, project.id);
  });
  ctx.mirrors.wake();
  for (const { event, update } of events) {
    if (event === 'push') await refreshMergeRequestsAfterPush(ctx, project, actor, update.ref.slice('refs/heads/'.length), update.after);
  }
}

/** A blank sha of any length becomes BLANK_SHA, what payloads carry. */
const normalized = (sha: string) => (isBlankSha(sha) ? BLANK_SHA : sha);

/** The commits a branch update brought: before..after, or for a new branch those on no other branch. */
async function pushedCommits(repository: string, update: RefUpdate): Promise<{ commits: HookCommit[]; total: number }> {
  if (isBlankSha(update.after)) return { commits: [], total: 0 };
  const branch = update.ref.slice('refs/heads/'.length);
  const range = isBlankSha(update.before) ? [update.after, '--not', `--exclude=${branch}`, '--branches'] : [`${update.before}..${update.after}`];
  const commits = hookCommits(await logWithChanges(repository, range, PUSH_COMMITS_LIMIT));
  // Below the limit the log holds the whole range: counting it again would only cost a git process.
  const total = commits.length < PUSH_COMMITS_LIMIT ? commits.length : await countLog(repository, range);
  return { commits, total };
}

/** A push's commits as hook payloads list them, each with the paths it added, modified and removed. */
function hookCommits(commits: readonly CommitWithChanges[]): HookCommit[] {
  return commits.map((commit) => {
    const paths = (change: PathChange['change']) => commit.changes.filter((entry) => entry.change === change).map((entry) => entry.path);
    return {
      id: commit.id,
      timestamp: commit.committedDate,
      message: commit.message,
      author: { name: commit.authorName, email: commit.authorEmail },
      added: paths('added'),
      modified: paths('modified'),
      removed: paths('removed'),
    };
  });
}

/** Wiki page formats by file extension, as Gollum names them. */
export const WIKI_FORMATS: Readonly<Record<string, string>> = { md: 'markdown', markdown: 'markdown', rdoc: 'rdoc', adoc: 'asciidoc', asciidoc: 'asciidoc', org: 'org' };
const WIKI_ACTIONS = { added: 'create', modified: 'update', removed: 'delete' } as const;

/**
 * What follows a push to a project's wiki: one `wiki_page` hook per page file the push added,
 * changed or removed (minimal: pages are the files with a wiki format extension, on any branch);
 * `moved` names a page file the wiki API moved, hooked as one update.
 */
export async function afterWikiPush(
  ctx: SiteContext,
  project: ProjectRow,
  actor: Actor,
  updates: readonly RefUpdate[],
  moved?: { readonly from: string; readonly to: string },
): Promise<void> {
  if (updates.length === 0) return;
  await recordRepositoryChange(ctx.db, ctx.config.dataDir, project.id, 'wiki', 'updated');
  const repository = wikiRepositoryPath(ctx.config.dataDir, project.id);
  const pages: { action: 'create' | 'update' | 'delete'; file: string; content: string; message: string }[] = [];
  for (const update of updates) {
    if (!update.ref.startsWith('refs/heads/') || isBlankSha(update.after)) continue;
    const changes = await changedPaths(repository, isBlankSha(update.before) ? null : update.before, update.after);
    const message = (await readCommit(repository, update.after)).message.trim();
    for (const { change, path: file } of changes) {
      // A page the API moved (new title or format) is one update of the page, as GitLab's UpdateService hooks it.
      if (moved && change === 'removed' && file === moved.from) continue;
      const extension = path.extname(file).slice(1).toLowerCase();
      if (!(extension in WIKI_FORMATS)) continue;
      const content = change === 'removed' ? '' : (await readBlob(repository, `${update.after}:${file}`)).toString('utf8');
      pages.push({ action: moved && file === moved.to ? 'update' : WIKI_ACTIONS[change], file, content, message });
    }
  }
  inTransaction(ctx.db, () => {
    updateProjectRow(ctx.db, project.id, { last_activity_at: nowIso() });
    if (pages.length === 0) return;
    const current = findProjectById(ctx.db, project.id) ?? project;
    const hookProject = hookProjectOf(ctx, current);
    const user = hookUserOf(ctx, actor.user);
    const wiki = {
      web_url: `${hookProject.web_url}/wikis/home`,
      git_ssh_url: hookProject.git_ssh_url.replace(/\.git$/, '.wiki.git'),
      git_http_url: hookProject.git_http_url.replace(/\.git$/, '.wiki.git'),
      path_with_namespace: `${hookProject.path_with_namespace}.wiki`,
      default_branch: 'master',
    };
    for (const page of pages) {
      const extension = path.extname(page.file);
      const slug = page.file.slice(0, page.file.length - extension.length);
      fireProjectHooks(ctx, current, 'wiki_page', {
        object_kind: 'wiki_page',
        user,
        project: hookProject,
        wiki,
        object_attributes: {
          title: path.posix.basename(slug).replace(/-/g, ' '),
          content: page.content,
          format: WIKI_FORMATS[extension.slice(1).toLowerCase()],
          message: page.message,
          slug,
          url: `${hookProject.web_url}/wikis/${slug}`,
          action: page.action,
        },
      });
    }
  });
}
