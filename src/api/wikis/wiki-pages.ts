import type { Request, Response } from 'express';
import type { WikiPageFields } from '../../entities/wikis.js';
import { wikiAttachment, wikiPage, wikiPageBasic, wikiPageWithEncoding } from '../../entities/wikis.js';
import type { BlobType } from '../../geo/blobs.js';
import { addWikiAttachment } from '../../services/wikis/wiki-attachments.js';
import { groupWiki, projectWiki, type WikiContainer } from '../../services/wikis/wiki-container.js';
import { createWikiPage, deleteWikiPage, getWikiPage, listWikiPages, updateWikiPage, WIKI_PAGE_FORMATS } from '../../services/wikis/wiki-pages.js';
import { renderWikiPage } from '../../services/wikis/wiki-render.js';
import type { SiteContext } from '../../site-context.js';
import { fromCurrentItem, type ReadRouting } from '../geo/read-routing.js';
import type { Handler } from '../routes.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, uploadedFile } from '../middleware/value-guards.js';
import { bool, oneOf, requireAtLeastOne, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** POST parameters, read before the project and the ability as Grape validates declared parameters first. */
export const wikiCreateParams = paramsGuard('wikiCreateParams', { title: required(str()), content: required(str()), format: oneOf(WIKI_PAGE_FORMATS) });

/** PUT parameters: at least one of content, title and format. */
export const wikiUpdateParams = paramsGuard('wikiUpdateParams', { title: str(), content: str(), format: oneOf(WIKI_PAGE_FORMATS) }, (params) => {
  requireAtLeastOne(params, ['content', 'title', 'format']);
  return params;
});

export const wikiListParams = paramsGuard('wikiListParams', { with_content: bool() });
export const wikiAttachmentParams = paramsGuard('wikiAttachmentParams', { branch: str() });
/** GET one page in GitLab 17 (group wikis): `version`, a commit of the wiki, and `render_html`. */
export const wikiShowParams = paramsGuard('wikiShowParams', { version: str({ max: 64 }), render_html: bool() });

/** The multipart `file` of an attachment (400 `file is missing`). */
export const attachmentFile = uploadedFile('file');

/**
 * What differs between a project's wiki routes and a group's: where the wiki is, the registry
 * item a secondary's copy of it is checked by, and the page view (10.8's for projects, GitLab
 * 17's with `encoding`, `version` and `render_html` for groups).
 */
export interface WikiSource {
  readonly wikiOf: (ctx: SiteContext, req: Request) => WikiContainer;
  readonly copyOf: (req: Request) => { readonly type: BlobType; readonly id: number };
  readonly page: (page: WikiPageFields) => object;
  /** The GET one parameters the routes declare; none for project wikis. */
  readonly showOptions: (req: Request) => { readonly version?: string; readonly render_html?: boolean };
}

export const projectWikis: WikiSource = {
  wikiOf: (ctx, req) => projectWiki(ctx, projectOf(req)),
  copyOf: (req) => ({ type: 'wiki', id: projectOf(req).id }),
  page: wikiPage,
  showOptions: () => ({}),
};

export const groupWikis: WikiSource = {
  wikiOf: (ctx, req) => groupWiki(ctx, groupOf(req)),
  copyOf: (req) => ({ type: 'group_wiki_repository', id: groupOf(req).id }),
  page: wikiPageWithEncoding,
  showOptions: (req) => wikiShowParams.of(req),
};

/** The `:slug` path part: a page in a directory comes URL-encoded (`dir%2Fpage`), decoded by the router. */
const slugOf = (req: Request) => String(req.params.slug);

/** The handlers of one kind of wiki; the reads answer from a secondary's copy only when it is current. */
export function wikiHandlers(source: WikiSource, reads: ReadRouting | null) {
  const fromCopy = (read: Handler) => fromCurrentItem(reads, source.copyOf, read);
  return {
    listPages: fromCopy(async (ctx, req, res) => {
      const { with_content: withContent } = wikiListParams.of(req);
      const pages = await listWikiPages(source.wikiOf(ctx, req), withContent === true);
      sendJson(res, 200, pages.map(withContent ? source.page : wikiPageBasic));
    }),

    showPage: fromCopy(async (ctx, req, res) => {
      const { version, render_html: renderHtml } = source.showOptions(req);
      const page = await getWikiPage(source.wikiOf(ctx, req), slugOf(req), version || undefined);
      sendJson(res, 200, source.page(renderHtml ? renderWikiPage(ctx, req.actor, page) : page));
    }),

    async addPage(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const params = wikiCreateParams.of(req);
      const page = await createWikiPage(ctx, source.wikiOf(ctx, req), requireActor(req), { ...params, format: params.format ?? 'markdown' });
      sendJson(res, 201, source.page(page));
    },

    async editPage(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const page = await updateWikiPage(ctx, source.wikiOf(ctx, req), requireActor(req), slugOf(req), wikiUpdateParams.of(req));
      sendJson(res, 200, source.page(page));
    },

    async removePage(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      await deleteWikiPage(ctx, source.wikiOf(ctx, req), requireActor(req), slugOf(req));
      sendNoContent(res);
    },

    async addAttachment(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const { branch } = wikiAttachmentParams.of(req);
      const attachment = await addWikiAttachment(ctx, source.wikiOf(ctx, req), requireActor(req), attachmentFile.of(req), branch || undefined);
      sendJson(res, 201, wikiAttachment(attachment));
    },
  };
}
