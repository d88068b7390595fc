import path from 'node:path';

/**
 * GitLab's file kinds for uploads: images and videos are embedded in Markdown (`![..](..)`) and
 * served inline; SVG is embedded too but may carry script, so it is served as an attachment.
 */
const EMBEDDED_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  ico: 'image/vnd.microsoft.icon',
  webp: 'image/webp',
  mp4: 'video/mp4',
  m4v: 'video/x-m4v',
  mov: 'video/quicktime',
  webm: 'video/webm',
  ogv: 'video/ogg',
};
const DANGEROUS_TYPES: Readonly<Record<string, string>> = { svg: 'image/svg+xml' };

const extensionOf = (filename: string) => path.extname(filename).slice(1).toLowerCase();

/** Whether Markdown embeds the file (images, videos, SVG): `![name](url)` rather than `[file](url)`. */
export const isEmbedded = (filename: string): boolean => extensionOf(filename) in EMBEDDED_TYPES || extensionOf(filename) in DANGEROUS_TYPES;

/** Whether a browser may render the file in place: safe images and videos only. */
export const isInline = (filename: string): boolean => extensionOf(filename) in EMBEDDED_TYPES;

/** The media type an upload is stored and served with: its kind's, else what the client sent. */
export function uploadMediaType(filename: string, sent: string): string {
  const extension = extensionOf(filename);
  return EMBEDDED_TYPES[extension] ?? DANGEROUS_TYPES[extension] ?? (sent || 'application/octet-stream');
}
