/** What the wiki views read of a page (services/wikis/wiki-pages.ts WikiPage). */
export interface WikiPageFields {
  readonly slug: string;
  readonly title: string;
  readonly format: string;
  readonly content?: string;
}

/** WikiPageBasic: the list without content. */
export function wikiPageBasic(page: WikiPageFields) {
  return { format: page.format, slug: page.slug, title: page.title };
}

/** WikiPage: one page with its content (also the list with `with_content`). */
export function wikiPage(page: WikiPageFields) {
  return { ...wikiPageBasic(page), content: page.content ?? '' };
}

/** GitLab 17's WikiPage (the group wiki API): the content's encoding besides; pages are read as UTF-8. */
export function wikiPageWithEncoding(page: WikiPageFields) {
  return { ...wikiPage(page), encoding: 'UTF-8' };
}

/** WikiAttachment: where POST /projects/:id/wikis/attachments (or a group's) stored the file; the link is relative to the wiki. */
export function wikiAttachment(attachment: { fileName: string; filePath: string; branch: string; markdown: string }) {
  return {
    file_name: attachment.fileName,
    file_path: attachment.filePath,
    branch: attachment.branch,
    link: { url: attachment.filePath, markdown: attachment.markdown },
  };
}
