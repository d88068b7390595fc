import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { badRequest } from '../../errors.js';
import { branchCommit, isValidBranchName } from '../../git/refs.js';
import { isEmbedded } from '../../storage/media-types.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import type { SiteContext } from '../../site-context.js';
import { isValidFilePath } from '../repository/commit-writer.js';
import type { Actor } from '../users/authentication.js';
import type { WikiContainer } from './wiki-container.js';
import { commitToWiki, ensureWiki, wikiHead, writingWiki } from './wiki-pages.js';

/** What POST /projects/:id/wikis/attachments (and a group's) answers (GitLab's WikiAttachment). */
export interface WikiAttachment {
  readonly fileName: string;
  readonly filePath: string;
  readonly branch: string;
  readonly markdown: string;
}

const MAX_FILE_NAME = 255;

/**
 * The uploaded file's own name, as GitLab keeps it (no directory part, cut to 255 characters with
 * its extension kept); 400 when nothing usable is left, or it is no name git can store.
 */
function attachmentName(uploaded: string): string {
  let name = path.posix.basename(uploaded.replace(/\\/g, '/'));
  if (name.length > MAX_FILE_NAME) {
    const extension = path.posix.extname(name).slice(0, 20);
    name = name.slice(0, MAX_FILE_NAME - extension.length) + extension;
  }
  if (!name) throw badRequest('The file name cannot be empty');
  if (!isValidFilePath(`uploads/x/${name}`)) throw badRequest('The file name is invalid');
  return name;
}

/**
 * Stores an uploaded file in the wiki repository as GitLab's Wikis::CreateAttachmentService does:
 * a commit by the caller (`Upload attachment <name>`) adding `uploads/<32 hex>/<file name>` on `branch` (the wiki's default
 * branch unless named; a branch that does not exist yet starts from the default branch's commit).
 */
export function addWikiAttachment(ctx: SiteContext, wiki: WikiContainer, actor: Actor, file: UploadedFile, branch: string | undefined): Promise<WikiAttachment> {
  return writingWiki(wiki, async () => {
    const fileName = attachmentName(file.filename);
    if (branch !== undefined && !(await isValidBranchName(branch))) throw badRequest('Branch name is invalid');
    const repository = await ensureWiki(wiki);
    const head = await wikiHead(repository);
    const target = branch ?? head.branch;
    const existing = target === head.branch ? head.commit : await branchCommit(repository, target);
    const filePath = `uploads/${randomBytes(16).toString('hex')}/${fileName}`;
    // A new branch starts at the default branch's commit; the compare-and-swap then expects it absent.
    const parent = existing ?? head.commit;
    await commitToWiki(ctx, wiki, actor, { branch: target, commit: existing, parent }, [{ path: filePath, fromFile: file.path }], `Upload attachment ${fileName}`);
    const alt = isEmbedded(fileName) ? path.basename(fileName, path.extname(fileName)) : fileName;
    return { fileName, filePath, branch: target, markdown: `${isEmbedded(fileName) ? '!' : ''}[${alt}](${filePath})` };
  });
}
