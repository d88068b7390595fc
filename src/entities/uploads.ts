import path from 'node:path';
import type { UploadRow } from '../db/tables/uploads.js';
import { isEmbedded } from '../storage/media-types.js';

/**
 * The Upload result (SPEC: Upload result; GITLAB-NOTES 2.2): `url` is relative to the project's
 * web URL, `full_path` (added by later GitLab versions) to the site. Embedded files (images,
 * videos) are `![name without extension](url)`, anything else `[filename](url)`.
 */
export function uploadView(row: UploadRow, projectFullPath: string) {
  const url = `/uploads/${row.secret}/${row.filename}`;
  const embedded = isEmbedded(row.filename);
  const alt = embedded ? path.basename(row.filename, path.extname(row.filename)) : row.filename;
  return {
    alt,
    url,
    full_path: `/${projectFullPath}${url}`,
    markdown: `${embedded ? '!' : ''}[${alt}](${url})`,
  };
}
