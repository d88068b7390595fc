import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { badRequest, invalid, notFound } from '../../errors.js';
import { oneAtATimeInSite } from '../../git/ref-lock.js';
import { hasRepository } from '../../git/in-repository.js';
import { branchCommit, resolveCommit } from '../../git/refs.js';
import { commitTreeChanges, headBranch, readBlobs, treeFiles, type FileChange } from '../../git/wiki-pages.js';
import type { SiteContext } from '../../site-context.js';
import { tmpDir } from '../../storage/layout.js';
import { WIKI_FORMATS } from '../repository/after-push.js';
import { isValidFilePath } from '../repository/commit-writer.js';
import type { Actor } from '../users/authentication.js';
import type { WikiContainer } from './wiki-container.js';

/** The formats a page may be written in (GitLab's Wiki::MARKUPS) and the extension each is stored with. */
export const WIKI_PAGE_FORMATS = ['markdown', 'rdoc', 'asciidoc', 'org'] as const;
export type WikiPageFormat = (typeof WIKI_PAGE_FORMATS)[number];
const EXTENSIONS: Readonly<Record<WikiPageFormat, string>> = { markdown: 'md', rdoc: 'rdoc', asciidoc: 'asciidoc', org: 'org' };

/** A page of a wiki (a project's or a group's): a file with a wiki format's extension on the wiki's default branch. */
export interface WikiPage {
  /** The file's path without its extension, directories included (`dir/My-page`). */
  readonly slug: string;
  /** The file's name without extension, dashes read as spaces, as Gollum titles a page. */
  readonly title: string;
  readonly format: string;
  readonly path: string;
  readonly blob: string;
  readonly content?: string;
}

/** The wiki's default branch: what its HEAD names (`master` for a wiki made here). */
const DEFAULT_BRANCH = 'master';
const MAX_TITLE = 245;

function pageOf(file: { path: string; blob: string }): WikiPage | null {
  const extension = path.posix.extname(file.path);
  const format = WIKI_FORMATS[extension.slice(1).toLowerCase()];
  if (!format || extension.length === file.path.length) return null;
  const slug = file.path.slice(0, -extension.length);
  if (path.posix.basename(slug) === '') return null;
  return { slug, title: path.posix.basename(slug).replace(/-/g, ' '), format, path: file.path, blob: file.blob };
}

/** The branch the wiki's pages live on and its commit (null for an empty or missing wiki). */
export async function wikiHead(repository: string): Promise<{ branch: string; commit: string | null }> {
  const branch = (await headBranch(repository)) ?? DEFAULT_BRANCH;
  return { branch, commit: await branchCommit(repository, branch) };
}

async function pagesAt(repository: string, commit: string | null): Promise<WikiPage[]> {
  if (!commit) return [];
  return (await treeFiles(repository, commit)).map(pageOf).filter((page): page is WikiPage => page !== null);
}

/** The wiki's pages in path order, with their content when asked (read in one git process). GitLab does not page this list. */
export async function listWikiPages(wiki: WikiContainer, withContent: boolean): Promise<WikiPage[]> {
  const { repository } = wiki;
  if (!(await hasRepository(repository))) return [];
  const pages = await pagesAt(repository, (await wikiHead(repository)).commit);
  if (!withContent) return pages;
  const blobs = await readBlobs(repository, pages.map((page) => page.blob));
  return pages.map((page) => ({ ...page, content: blobs.get(page.blob)!.toString('utf8') }));
}

/**
 * The page with this slug and its content, or 404 `Wiki Page`; with `version` (a commit of the
 * wiki, GitLab's version hash) the page as that commit has it, 404 when it names no commit or the
 * page is not in it.
 */
export async function getWikiPage(wiki: WikiContainer, slug: string, version?: string): Promise<WikiPage> {
  const { repository } = wiki;
  if (!(await hasRepository(repository))) throw notFound('Wiki Page');
  const commit = version === undefined ? (await wikiHead(repository)).commit : await resolveCommit(repository, version);
  const page = (await pagesAt(repository, commit)).find((candidate) => candidate.slug === slug);
  if (!page) throw notFound('Wiki Page');
  const blobs = await readBlobs(repository, [page.blob]);
  return { ...page, content: blobs.get(page.blob)!.toString('utf8') };
}

/**
 * The file name Gollum gives a title: white space and `<>+` become dashes; a `/` keeps its
 * meaning, a directory. 400 with the title's validation error when it names no valid path.
 */
function slugOfTitle(title: string): string {
  const trimmed = title.trim();
  if (!trimmed) throw invalid({ title: ["can't be blank"] });
  if (trimmed.length > MAX_TITLE) throw invalid({ title: [`is too long (maximum is ${MAX_TITLE} characters)`] });
  const slug = trimmed.replace(/\s/g, '-').replace(/[<>+]/g, '-');
  if (!isValidFilePath(slug) || slug.split('/').some((part) => part.startsWith('.'))) throw invalid({ title: ['is invalid'] });
  return slug;
}

const duplicate = () => invalid({ base: ['Duplicate page: A page with that title and format already exists'] });

export interface WikiPageInput {
  readonly title: string;
  readonly content: string;
  readonly format: WikiPageFormat;
}

/** Creates a page as a commit by the caller on the wiki's default branch; 400 when a page has that slug already (in any format). */
export function createWikiPage(ctx: SiteContext, wiki: WikiContainer, actor: Actor, input: WikiPageInput): Promise<WikiPage> {
  return writingWiki(wiki, async () => {
    const slug = slugOfTitle(input.title);
    if (!input.content) throw invalid({ content: ["can't be blank"] });
    const repository = await ensureWiki(wiki);
    const head = await wikiHead(repository);
    if ((await pagesAt(repository, head.commit)).some((page) => page.slug === slug)) throw duplicate();
    const file = `${slug}.${EXTENSIONS[input.format]}`;
    await commitToWiki(ctx, wiki, actor, head, [{ path: file, content: Buffer.from(input.content, 'utf8') }], `${actor.user.username} created page: ${input.title.trim()}`);
    return getWikiPage(wiki, slug);
  });
}

/**
 * Changes a page's content, title (a title without `/` keeps the page's directory) or format (the
 * file's extension); a new title or format moves the file. Absent fields keep their value.
 */
export function updateWikiPage(ctx: SiteContext, wiki: WikiContainer, actor: Actor, slug: string, input: Partial<WikiPageInput>): Promise<WikiPage> {
  return writingWiki(wiki, async () => {
    const page = await getWikiPage(wiki, slug);
    const { repository } = wiki;
    const head = await wikiHead(repository);
    const directory = path.posix.dirname(page.slug);
    const newSlug =
      input.title === undefined ? page.slug : input.title.includes('/') || directory === '.' ? slugOfTitle(input.title) : `${directory}/${slugOfTitle(input.title)}`;
    if (input.content !== undefined && !input.content) throw invalid({ content: ["can't be blank"] });
    // The same format keeps the file's own extension (a `.markdown` page stays one).
    const extension = input.format === undefined || input.format === page.format ? path.posix.extname(page.path).slice(1) : EXTENSIONS[input.format];
    const file = `${newSlug}.${extension}`;
    if (newSlug !== page.slug && (await pagesAt(repository, head.commit)).some((other) => other.slug === newSlug)) throw duplicate();
    const changes: FileChange[] = [{ path: file, content: Buffer.from(input.content ?? page.content!, 'utf8') }];
    if (file !== page.path) changes.push({ path: page.path, remove: true });
    const moved = file === page.path ? undefined : { from: page.path, to: file };
    await commitToWiki(ctx, wiki, actor, head, changes, `${actor.user.username} updated page: ${input.title?.trim() ?? page.title}`, moved);
    return getWikiPage(wiki, newSlug);
  });
}

/** Removes a page as a commit by the caller; 404 `Wiki Page` when there is none. */
export function deleteWikiPage(ctx: SiteContext, wiki: WikiContainer, actor: Actor, slug: string): Promise<void> {
  return writingWiki(wiki, async () => {
    const page = await getWikiPage(wiki, slug);
    const head = await wikiHead(wiki.repository);
    await commitToWiki(ctx, wiki, actor, head, [{ path: page.path, remove: true }], `${actor.user.username} deleted page: ${page.title}`);
  });
}

/**
 * Runs one API write of a wiki after the earlier ones in this process: each reads the
 * branch, builds on it and moves it, so two writes at once would otherwise have the later one
 * refused by the compare-and-swap. A push through git meanwhile still gets that 400.
 */
export function writingWiki<T>(wiki: WikiContainer, work: () => Promise<T>): Promise<T> {
  return oneAtATimeInSite(`wiki-write:${wiki.repository}`, work);
}

/** The wiki repository, made on first write as a first push through git makes it (with its Geo `created` event). */
export async function ensureWiki(wiki: WikiContainer): Promise<string> {
  if (!(await hasRepository(wiki.repository))) await wiki.create();
  return wiki.repository;
}

/**
 * One commit by the caller on a branch of the wiki, then what a push to the wiki is followed by
 * (the Geo event, wiki_page hooks, the project's activity). A branch that moved since `head` was
 * read (a push meanwhile) is a 400: the caller retries on the new state instead of overwriting it.
 */
export async function commitToWiki(
  ctx: SiteContext,
  wiki: WikiContainer,
  actor: Actor,
  head: { branch: string; commit: string | null; parent?: string | null },
  changes: readonly FileChange[],
  message: string,
  moved?: { readonly from: string; readonly to: string },
): Promise<string> {
  const { repository } = wiki;
  const scratchRoot = tmpDir(ctx.config.dataDir);
  await mkdir(scratchRoot, { recursive: true });
  const { user } = actor;
  const sha = await commitTreeChanges(repository, { branch: head.branch, parent: head.parent ?? head.commit, expected: head.commit, changes, message, author: { name: user.name, email: user.email }, scratchRoot });
  if (!sha) throw badRequest(`Could not update the wiki: branch '${head.branch}' was changed by another push while this change was made; please retry`);
  try {
    await wiki.afterChange(actor, [{ ref: `refs/heads/${head.branch}`, before: head.commit ?? '0'.repeat(40), after: sha }], moved);
  } catch (error) {
    // The commit landed; hooks and activity are best effort, as after a push, but the Geo event is not.
    ctx.log.error({ err: error, ...wiki.logFields }, 'after-push work failed for a wiki change through the API');
    await wiki.recordChange();
  }
  return sha;
}
