/**
 * The body of GET /api/v4/geo/transfers?files=<type>:<id>,... : several small files in one response,
 * so a secondary syncing many of them does not pay a request, a response and their headers per file
 * on both sites. Each requested file is one part, in the order asked: a header line of JSON, then
 * exactly `size` bytes of the file (none for a file the primary cannot serve).
 */
export const FILE_BATCH_CONTENT_TYPE = 'application/vnd.geoforge.file-batch';

/** Files one batch may ask for: the query stays short, and one failed batch costs few retries. */
export const FILE_BATCH_MAX_FILES = 100;

export type FileBatchHeader =
  | { readonly type: string; readonly id: number; readonly size: number; readonly sha256: string }
  /** A file the primary cannot serve, with the status and body a single transfer of it would get. */
  | { readonly type: string; readonly id: number; readonly status: number; readonly message: string; readonly geo_code?: string };

export const fileBatchKey = (type: string, id: number): string => `${type}:${id}`;

export function encodeFileBatchHeader(header: FileBatchHeader): Buffer {
  return Buffer.from(`${JSON.stringify(header)}\n`);
}

/** A header line longer than this is not one: the stream is not a file batch. */
const MAX_HEADER_BYTES = 4096;

export class FileBatchFormatError extends Error {}

function parseHeader(line: Buffer): FileBatchHeader {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    throw new FileBatchFormatError('a part header of the file batch is not JSON');
  }
  const header = value as Record<string, unknown>;
  const valid =
    typeof header === 'object' &&
    header !== null &&
    typeof header.type === 'string' &&
    Number.isSafeInteger(header.id) &&
    ((Number.isSafeInteger(header.size) && (header.size as number) >= 0 && typeof header.sha256 === 'string') ||
      (Number.isInteger(header.status) && typeof header.message === 'string'));
  if (!valid) throw new FileBatchFormatError(`a part header of the file batch is malformed: ${line.toString('utf8').slice(0, 200)}`);
  return header as unknown as FileBatchHeader;
}

/**
 * Splits a file batch body into its parts as they arrive: each header, with the file's bytes as
 * slices of the received chunks when `keep(header)` says so (the others are skipped, never held).
 * Throws FileBatchFormatError when the body is not a well-formed batch or ends inside a part.
 */
export async function* decodeFileBatch(
  body: AsyncIterable<Buffer>,
  keep: (header: FileBatchHeader & { size: number }) => boolean,
): AsyncGenerator<{ header: FileBatchHeader; chunks: Buffer[] }> {
  let headerChunks: Buffer[] = [];
  let headerBytes = 0;
  let part: { header: FileBatchHeader; chunks: Buffer[]; left: number; keep: boolean } | null = null;
  for await (const chunk of body) {
    let offset = 0;
    while (offset < chunk.length) {
      if (part) {
        const take = Math.min(part.left, chunk.length - offset);
        if (part.keep) part.chunks.push(chunk.subarray(offset, offset + take));
        part.left -= take;
        offset += take;
        if (part.left === 0) {
          yield { header: part.header, chunks: part.chunks };
          part = null;
        }
        continue;
      }
      const newline = chunk.indexOf(10, offset);
      const end = newline === -1 ? chunk.length : newline;
      headerChunks.push(chunk.subarray(offset, end));
      headerBytes += end - offset;
      if (headerBytes > MAX_HEADER_BYTES) throw new FileBatchFormatError(`a part header of the file batch is longer than ${MAX_HEADER_BYTES} bytes`);
      if (newline === -1) break;
      offset = newline + 1;
      const header = parseHeader(Buffer.concat(headerChunks, headerBytes));
      headerChunks = [];
      headerBytes = 0;
      if (!('size' in header) || header.size === 0) yield { header, chunks: [] };
      else part = { header, chunks: [], left: header.size, keep: keep(header) };
    }
  }
  if (part || headerBytes > 0) throw new FileBatchFormatError('the file batch ended inside a part');
}
