import type { Response } from 'express';
import type { GitStream } from '../../git/cli.js';
import { writeBody } from '../respond.js';

/** Text unless the first bytes hold a NUL, git's own test for binary content. */
export const blobContentType = (first: Buffer): string => (first.subarray(0, 8000).includes(0) ? 'application/octet-stream' : 'text/plain; charset=utf-8');

/**
 * Streams a git's stdout as the response body (an archive, a raw blob), chunk by chunk as the
 * socket takes them, never the whole. The body ends only when git exits 0: a git that fails
 * before the first byte is the request's error (500), after it the response is cut, so a client
 * never takes a truncated archive for a whole one. A client that goes away kills git.
 * `contentTypeOf` names the type from the first chunk.
 */
export async function sendGitOutput(res: Response, child: GitStream, contentTypeOf?: (first: Buffer) => string): Promise<void> {
  const exited = child.done.then(
    () => null,
    (error: unknown) => error,
  );
  res.once('close', () => {
    if (!res.writableEnded) child.kill();
  });
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      if (contentTypeOf && !res.headersSent) res.setHeader('Content-Type', contentTypeOf(chunk));
      await writeBody(res, chunk);
    }
  } catch {
    // The client went away or the pipe broke: nothing is left to answer.
    child.kill();
    res.destroy();
    await exited;
    return;
  }
  const failure = await exited;
  if (failure === null) {
    if (contentTypeOf && !res.headersSent) res.setHeader('Content-Type', contentTypeOf(Buffer.alloc(0)));
    res.end();
    return;
  }
  if (!res.headersSent) {
    // Nothing went out: the failure is answered as an error, not as the attachment it was to be.
    res.removeHeader('Content-Disposition');
    res.removeHeader('Content-Transfer-Encoding');
    throw failure;
  }
  res.destroy();
}
