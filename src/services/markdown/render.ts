import type MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import type SanitizeHtml from 'sanitize-html';
import type { Db } from '../../db/connection.js';
import { selectIssuesByIid, selectMergeRequestsByIid, selectUsersByUsername, type ReferencedIssuable } from '../../db/tables/markdown-references.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { can } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { lazyModule } from '../../lazy-module.js';

/**
 * POST /markdown (GitLab's Banzai pipelines, in small): CommonMark, or with `gfm` GitLab Flavored
 * Markdown: tables, strikethrough, autolinks, `@user` mentions of existing users, and, in the
 * context of a project the caller reads, `#12` and `!3` references to the project's existing
 * issues and merge requests the caller may see. Inline HTML is allowed and the result sanitised:
 * no scripts, event handlers, styles or javascript: URLs.
 */

/** Where a rendering happens: the caller, the project its references point into, and the base of links. */
export interface MarkdownContext {
  readonly db: Db;
  readonly actor: Actor | null;
  readonly project: ProjectRow | null;
  /** The project's full path, the base of its reference links. */
  readonly projectPath: string | null;
  readonly externalUrl: string;
}

/** `#12`, `!3` or `@name`, not inside a word, a URL path, an entity or an email address. */
const REFERENCE = /(?<![\w&#!/@.-])(?:([#!])(\d{1,9})(?!\w)|@([A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?))/g;

interface Found {
  readonly issues: Map<number, ReferencedIssuable>;
  readonly mergeRequests: Map<number, ReferencedIssuable>;
  readonly users: Map<string, { id: number; username: string; name: string }>;
}

const markdownIt = lazyModule<typeof MarkdownIt>('markdown-it');
const sanitizeHtml = lazyModule<typeof SanitizeHtml>('sanitize-html');

interface Renderers {
  readonly plain: InstanceType<typeof MarkdownIt>;
  readonly gfm: InstanceType<typeof MarkdownIt>;
  readonly sanitize: SanitizeHtml.IOptions;
}

let renderers: Renderers | null = null;

/** Built at the first render: markdown-it and sanitize-html cost a site's boot about 170 ms to load. */
function renderersOf(): Renderers {
  if (renderers) return renderers;
  const MarkdownItClass = markdownIt();
  const gfm = new MarkdownItClass('default', { html: true, linkify: true });
  gfm.core.ruler.push('gitlab_references', (state: StateCore) => void linkReferences(state, state.env as { context?: MarkdownContext }));
  renderers = { plain: new MarkdownItClass('commonmark', { html: true }), gfm, sanitize: sanitizeOptions(sanitizeHtml().defaults.allowedTags) };
  return renderers;
}

/** The HTML of `text`, sanitised. */
export function renderMarkdown(text: string, options: { gfm: boolean; context: MarkdownContext }): string {
  const { plain, gfm, sanitize } = renderersOf();
  const renderer = options.gfm ? gfm : plain;
  return sanitizeHtml()(renderer.render(text, { context: options.context }), sanitize);
}

/** The text tokens outside links, where references may stand. */
function* proseTokens(tokens: Token[]): Generator<{ parent: Token; index: number }> {
  for (const block of tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    let inLink = 0;
    for (let index = 0; index < block.children.length; index++) {
      const child = block.children[index];
      if (child.type === 'link_open') inLink++;
      else if (child.type === 'link_close') inLink--;
      else if (child.type === 'text' && inLink === 0) yield { parent: block, index };
    }
  }
}

/** Finds every candidate, looks them up at once, then replaces the ones that exist with links. */
function linkReferences(state: StateCore, env: { context?: MarkdownContext }): void {
  const context = env.context;
  if (!context) return;
  const issueIids = new Set<number>();
  const mergeRequestIids = new Set<number>();
  const usernames = new Set<string>();
  for (const { parent, index } of proseTokens(state.tokens)) {
    for (const match of parent.children![index].content.matchAll(REFERENCE)) {
      if (match[3]) usernames.add(match[3].toLowerCase());
      else (match[1] === '#' ? issueIids : mergeRequestIids).add(Number(match[2]));
    }
  }
  if (!issueIids.size && !mergeRequestIids.size && !usernames.size) return;
  const found = lookUp(context, [...issueIids], [...mergeRequestIids], [...usernames]);
  // Backwards, so that splicing a token into links keeps the earlier indexes valid.
  for (const { parent, index } of [...proseTokens(state.tokens)].reverse()) {
    const replaced = splitReferences(state, parent.children![index], context, found);
    if (replaced) parent.children!.splice(index, 1, ...replaced);
  }
}

function lookUp(context: MarkdownContext, issueIids: number[], mergeRequestIids: number[], usernames: string[]): Found {
  const { db, actor, project } = context;
  const issues = project && can(db, actor, 'read_issue', project) ? selectIssuesByIid(db, project.id, issueIids) : [];
  const confidentialToo = project !== null && can(db, actor, 'read_confidential_issues', project);
  const mergeRequests = project && can(db, actor, 'read_merge_request', project) ? selectMergeRequestsByIid(db, project.id, mergeRequestIids) : [];
  return {
    issues: new Map(issues.filter((issue) => confidentialToo || !issue.confidential).map((issue) => [issue.iid, issue])),
    mergeRequests: new Map(mergeRequests.map((mergeRequest) => [mergeRequest.iid, mergeRequest])),
    users: new Map(selectUsersByUsername(db, usernames).map((user) => [user.username.toLowerCase(), user])),
  };
}

/** The token as text and link tokens, or null when it holds no reference that exists. */
function splitReferences(state: StateCore, token: Token, context: MarkdownContext, found: Found): Token[] | null {
  const out: Token[] = [];
  let last = 0;
  for (const match of token.content.matchAll(REFERENCE)) {
    const link = referenceLink(match, context, found);
    if (!link) continue;
    if (match.index > last) out.push(textToken(state, token.content.slice(last, match.index)));
    const open = new state.Token('link_open', 'a', 1);
    for (const [name, value] of Object.entries(link)) open.attrSet(name, value);
    out.push(open, textToken(state, match[0]), new state.Token('link_close', 'a', -1));
    last = match.index + match[0].length;
  }
  if (!out.length) return null;
  if (last < token.content.length) out.push(textToken(state, token.content.slice(last)));
  return out;
}

function textToken(state: StateCore, content: string): Token {
  const token = new state.Token('text', '', 0);
  token.content = content;
  return token;
}

/** GitLab's reference link attributes (class `gfm gfm-<type>`, data-reference-type, the object's ids), or null. */
function referenceLink(match: RegExpMatchArray, context: MarkdownContext, found: Found): Record<string, string> | null {
  const { project, projectPath, externalUrl } = context;
  if (match[3]) {
    const user = found.users.get(match[3].toLowerCase());
    if (!user) return null;
    return { href: `${externalUrl}/${user.username}`, 'data-reference-type': 'user', 'data-user': String(user.id), title: user.name, class: 'gfm gfm-project_member js-user-link' };
  }
  if (!project) return null;
  const iid = Number(match[2]);
  if (match[1] === '#') {
    const issue = found.issues.get(iid);
    if (!issue) return null;
    return { href: `${externalUrl}/${projectPath}/-/issues/${iid}`, 'data-reference-type': 'issue', 'data-project': String(project.id), 'data-issue': String(issue.id), 'data-iid': String(iid), title: issue.title, class: 'gfm gfm-issue' };
  }
  const mergeRequest = found.mergeRequests.get(iid);
  if (!mergeRequest) return null;
  return {
    href: `${externalUrl}/${projectPath}/-/merge_requests/${iid}`,
    'data-reference-type': 'merge_request',
    'data-project': String(project.id),
    'data-merge-request': String(mergeRequest.id),
    'data-iid': String(iid),
    title: mergeRequest.title,
    class: 'gfm gfm-merge_request',
  };
}

/** What rendered Markdown may keep: the tags Markdown makes and common inline HTML, links over safe schemes only. */
const sanitizeOptions = (defaultTags: readonly string[]): SanitizeHtml.IOptions => ({
  allowedTags: [...defaultTags, 'img', 'del', 's', 'ins', 'sup', 'sub', 'details', 'summary', 'input'],
  allowedAttributes: {
    a: ['href', 'title', 'class', 'rel', 'data-reference-type', 'data-user', 'data-project', 'data-issue', 'data-merge-request', 'data-iid'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    code: ['class'],
    pre: ['class'],
    span: ['class'],
    th: ['style'],
    td: ['style'],
    ol: ['start'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedStyles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto', 'ftp', 'tel'],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: true,
});
