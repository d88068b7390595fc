import type { Request, Response } from 'express';
import { wikiAttachment, wikiPage, wikiPageBasic } from '../../entities/wikis.js';
import { addWikiAttachment } from '../../services/wikis/wiki-attachments.js';
import { createWikiPage, deleteWikiPage, getWikiPage, listWikiPages, updateWikiPage, WIKI_PAGE_FORMATS } from '../../services/wikis/wiki-pages.js';
import type { SiteContext } from '../../site-context.js';
import { fromCurrentCopy, type ReadRouting } from '../geo/read-routing.js';
import type { Handler } from '../routes.js';
import { projectOf, requireActor } from '../middleware/guards.js';
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

/** The multipart `file` of an attachment (400 `file is missing`). */
export const attachmentFile = uploadedFile('file');

/** The `:slug` path part: a page in a directory comes URL-encoded (`dir%2Fpage`), decoded by the router. */
const slugOf = (req: Request) => String(req.params.slug);

export const listPages = (reads: ReadRouting | null): Handler =>
  fromCurrentCopy(reads, 'wiki', async (ctx, req, res) => {
    const { with_content: withContent } = wikiListParams.of(req);
    const pages = await listWikiPages(ctx, projectOf(req), withContent === true);
    sendJson(res, 200, pages.map(withContent ? wikiPage : wikiPageBasic));
  });

export const showPage = (reads: ReadRouting | null): Handler =>
  fromCurrentCopy(reads, 'wiki', async (ctx, req, res) => {
    sendJson(res, 200, wikiPage(await getWikiPage(ctx, projectOf(req), slugOf(req))));
  });

export async function addPage(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = wikiCreateParams.of(req);
  const page = await createWikiPage(ctx, projectOf(req), requireActor(req), { ...params, format: params.format ?? 'markdown' });
  sendJson(res, 201, wikiPage(page));
}

export async function editPage(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const page = await updateWikiPage(ctx, projectOf(req), requireActor(req), slugOf(req), wikiUpdateParams.of(req));
  sendJson(res, 200, wikiPage(page));
}

export async function removePage(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await deleteWikiPage(ctx, projectOf(req), requireActor(req), slugOf(req));
  sendNoContent(res);
}

export async function addAttachment(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { branch } = wikiAttachmentParams.of(req);
  const attachment = await addWikiAttachment(ctx, projectOf(req), requireActor(req), attachmentFile.of(req), branch || undefined);
  sendJson(res, 201, wikiAttachment(attachment));
}
