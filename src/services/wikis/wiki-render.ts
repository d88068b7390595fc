import type { SiteContext } from '../../site-context.js';
import { renderMarkdown } from '../markdown/render.js';
import type { Actor } from '../users/authentication.js';
import type { WikiPage } from './wiki-pages.js';

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * A page with its content as HTML (`render_html`, GitLab's render_wiki_content): markdown through
 * the GitLab Flavored Markdown renderer (sanitised; `@user` mentions link, with no project for
 * `#` and `!` references); the other formats, which have no renderer here, as escaped preformatted text.
 */
export function renderWikiPage(ctx: SiteContext, actor: Actor | null, page: WikiPage): WikiPage {
  const content = page.content ?? '';
  if (page.format !== 'markdown') return { ...page, content: `<pre>${content.replace(/[&<>"']/g, (char) => ESCAPES[char]!)}</pre>` };
  const context = { db: ctx.db, actor, project: null, projectPath: null, externalUrl: ctx.externalUrl };
  return { ...page, content: renderMarkdown(content, { gfm: true, context }) };
}
