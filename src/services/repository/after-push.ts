import path from 'node:path';
import { inTransaction } from '../../db/connection.js';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import { findProjectById, updateProjectRow, type ProjectRow } from '../../db/tables/projects.js';
import { userBasic } from '../../entities/users.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { runGit } from '../../git/cli.js';
import { repositoryPath, wikiRepositoryPath } from '../../storage/layout.js';
import type { RefUpdate } from '../../git/smart-http.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { nowIso } from '../../storage/clock.js';
import { fireProjectHooks } from '../hooks/fire.js';
import { BLANK_SHA, PUSH_COMMITS_LIMIT, pushPayload, tagPushPayload, type HookCommit, type HookProject, type HookUser } from '../hooks/payloads.js';

const isBlank = (sha: string) => /^0+$/.test(sha);

/**
 * What follows a push that changed refs (GitLab's PostReceive): the project's activity time and
 * the push / tag push hooks, one per ref, after the Geo repository event. Later work (merge
 * requests marked unchecked) belongs here too. Git has already moved the refs: nothing here can refuse.
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
      const commits = isBlank(update.after) ? [] : await readCommits(repository, ['-n', '1', `${update.after}^{commit}`]);
      const message = isBlank(update.after) ? null : await tagMessage(repository, update.after);
      events.push({ event: 'tag_push', update, commits, total: commits.length, message });
    }
  }
  inTransaction(ctx.db, () => {
    const now = nowIso();
    updateProjectRow(ctx.db, project.id, { last_activity_at: now });
    // The row as it is now: a rename during the push shows in the payload.
    const current = findProjectById(ctx.db, project.id) ?? project;
    const hookProject = hookProjectOf(ctx, current);
    const user = hookUserOf(ctx, actor);
    for (const { event, update, commits, total, message } of events) {
      const input = { user, project: hookProject, before: normalized(update.before), after: normalized(update.after), ref: update.ref, commits, totalCommitsCount: total, message };
      fireProjectHooks(ctx, current, event, event === 'push' ? pushPayload(input) : tagPushPayload(input));
    }
  });
}

/** SHA-1 repositories send 40 zeros; BLANK_SHA is what payloads carry. */
const normalized = (sha: string) => (isBlank(sha) ? BLANK_SHA : sha);

/** The commits a branch update brought: before..after, or for a new branch those on no other branch. */
async function pushedCommits(repository: string, update: RefUpdate): Promise<{ commits: HookCommit[]; total: number }> {
  if (isBlank(update.after)) return { commits: [], total: 0 };
  const branch = update.ref.slice('refs/heads/'.length);
  const range = isBlank(update.before) ? [update.after, '--not', `--exclude=${branch}`, '--branches'] : [`${update.before}..${update.after}`];
  const { stdout } = await runGit(['--git-dir', repository, 'rev-list', '--count', ...range]);
  const total = Number(stdout.trim()) || 0;
  if (total === 0) return { commits: [], total };
  return { commits: await readCommits(repository, ['-n', String(PUSH_COMMITS_LIMIT), ...range]), total };
}

const RECORD = '\x1e';
const FIELD = '\x1f';

/** Commits of `git log <args>` with their changed paths, oldest first. */
async function readCommits(repository: string, args: readonly string[]): Promise<HookCommit[]> {
  const { stdout } = await runGit([
    '-c',
    'core.quotePath=false',
    '--git-dir',
    repository,
    'log',
    '--no-renames',
    '--name-status',
    `--format=${RECORD}%H${FIELD}%cI${FIELD}%an${FIELD}%ae${FIELD}%B${FIELD}`,
    ...args,
    '--',
  ]);
  const commits: HookCommit[] = [];
  for (const record of stdout.split(RECORD).slice(1)) {
    const [id, timestamp, name, email, message, files = ''] = record.split(FIELD);
    const added: string[] = [];
    const modified: string[] = [];
    const removed: string[] = [];
    for (const line of files.split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 1) continue;
      const file = line.slice(tab + 1);
      const status = line[0];
      if (status === 'A') added.push(file);
      else if (status === 'D') removed.push(file);
      else modified.push(file);
    }
    commits.push({ id: id!, timestamp: timestamp!, message: message!, author: { name: name!, email: email! }, added, modified, removed });
  }
  return commits.reverse();
}

/** An annotated tag's message; null for a lightweight tag. */
async function tagMessage(repository: string, sha: string): Promise<string | null> {
  const type = (await runGit(['--git-dir', repository, 'cat-file', '-t', sha])).stdout.trim();
  if (type !== 'tag') return null;
  const { stdout } = await runGit(['--git-dir', repository, 'cat-file', 'tag', sha]);
  const body = stdout.indexOf('\n\n');
  return body < 0 ? '' : stdout.slice(body + 2).replace(/\n?-----BEGIN PGP SIGNATURE-----[\s\S]*$/, '').trimEnd();
}

function hookUserOf(ctx: SiteContext, actor: Actor): HookUser {
  const { user } = actor;
  return { id: user.id, name: user.name, username: user.username, email: user.email, avatar_url: userBasic(user, ctx).avatar_url };
}

function hookProjectOf(ctx: SiteContext, project: ProjectRow): HookProject {
  const namespace = findNamespaceById(ctx.db, project.namespace_id);
  const fullPath = `${namespace?.full_path ?? ''}/${project.path}`;
  return {
    id: project.id,
    name: project.name,
    description: project.description,
    web_url: `${ctx.externalUrl}/${fullPath}`,
    avatar_url: project.avatar_path ? `${ctx.externalUrl}/uploads/-/system/project/avatar/${project.id}/${encodeURIComponent(project.avatar_path)}` : null,
    git_ssh_url: `git@${new URL(ctx.externalUrl).hostname}:${fullPath}.git`,
    git_http_url: `${ctx.externalUrl}/${fullPath}.git`,
    namespace: namespace?.name ?? '',
    visibility_level: project.visibility_level,
    path_with_namespace: fullPath,
    default_branch: project.default_branch,
    ci_config_path: project.ci_config_path,
  };
}

/** Wiki page formats by file extension, as Gollum names them. */
const WIKI_FORMATS: Readonly<Record<string, string>> = { md: 'markdown', markdown: 'markdown', rdoc: 'rdoc', adoc: 'asciidoc', asciidoc: 'asciidoc', org: 'org' };
/** git's empty tree, the "before" of a wiki branch's first push. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * What follows a push to a project's wiki: one `wiki_page` hook per page file the push added,
 * changed or removed (minimal: pages are the files with a wiki format extension, on any branch).
 */
export async function afterWikiPush(ctx: SiteContext, project: ProjectRow, actor: Actor, updates: readonly RefUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  await recordRepositoryChange(ctx.db, ctx.config.dataDir, project.id, 'wiki', 'updated');
  const repository = wikiRepositoryPath(ctx.config.dataDir, project.id);
  const pages: { action: 'create' | 'update' | 'delete'; file: string; content: string; message: string }[] = [];
  for (const update of updates) {
    if (!update.ref.startsWith('refs/heads/') || isBlank(update.after)) continue;
    const before = isBlank(update.before) ? EMPTY_TREE : update.before;
    const { stdout } = await runGit(['-c', 'core.quotePath=false', '--git-dir', repository, 'diff', '--no-renames', '--name-status', before, update.after, '--']);
    const message = (await runGit(['--git-dir', repository, 'log', '-n', '1', '--format=%B', update.after])).stdout.trim();
    for (const line of stdout.split('\n')) {
      const tab = line.indexOf('\t');
      if (tab < 1) continue;
      const file = line.slice(tab + 1);
      const extension = path.extname(file).slice(1).toLowerCase();
      if (!(extension in WIKI_FORMATS)) continue;
      const action = line[0] === 'A' ? 'create' : line[0] === 'D' ? 'delete' : 'update';
      const content = action === 'delete' ? '' : (await runGit(['--git-dir', repository, 'cat-file', 'blob', `${update.after}:${file}`])).stdout;
      pages.push({ action, file, content, message });
    }
  }
  inTransaction(ctx.db, () => {
    updateProjectRow(ctx.db, project.id, { last_activity_at: nowIso() });
    if (pages.length === 0) return;
    const current = findProjectById(ctx.db, project.id) ?? project;
    const hookProject = hookProjectOf(ctx, current);
    const user = hookUserOf(ctx, actor);
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
