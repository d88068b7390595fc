import type { Request } from 'express';

/** What body-parser's errors carry and the error handler reads: an HTTP status and a type. */
class BodyError extends Error {
  constructor(readonly status: number, readonly type: string) {
    super(type);
  }
}

/**
 * True for the body nearly every API write sends: `application/json`, UTF-8 or no charset, not
 * compressed. Only these take readJsonBody; anything else (another charset, gzip, `+json`
 * types) goes through body-parser, whose generic pipeline costs a write several times more.
 */
export function isPlainJson(req: Request): boolean {
  const type = req.headers['content-type'];
  if (type === undefined) return false;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const semicolon = type.indexOf(';');
  if (semicolon === -1) return type.trim().toLowerCase() === 'application/json';
  if (type.slice(0, semicolon).trim().toLowerCase() !== 'application/json') return false;
  return /^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(type.slice(semicolon + 1));
}

/**
 * Reads a plain JSON body into `req.body` as body-parser's json() does, with its outcomes: no
 * body leaves it undefined, an empty one is `{}`, only an object or array is accepted (400
 * `entity.parse.failed` otherwise), a body over `limit` is a 413 `entity.too.large`, a length
 * other than Content-Length a 400 `request.size.invalid`, a leading BOM is dropped. On an error
 * the rest of the body is read off before `done` is called, so the answer is not cut short.
 */
export function readJsonBody(req: Request, limit: number, done: (error?: BodyError) => void): void {
  const lengthHeader = req.headers['content-length'];
  const length = lengthHeader === undefined ? null : Number(lengthHeader);
  if (req.headers['transfer-encoding'] === undefined && (length === null || Number.isNaN(length))) return done();
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const settle = (error?: BodyError) => {
    if (settled) return;
    settled = true;
    req.removeListener('data', onData).removeListener('end', onEnd);
    done(error);
  };
  // Reads off what is left of the body, then answers.
  const fail = (error: BodyError) => {
    req.removeListener('data', onData).removeListener('end', onEnd);
    if (req.complete) return settle(error);
    req.once('end', () => settle(error)).once('close', () => settle(error));
    req.resume();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limit) fail(new BodyError(413, 'entity.too.large'));
    else chunks.push(chunk);
  };
  const onEnd = () => {
    if (length !== null && received !== length) return settle(new BodyError(400, 'request.size.invalid'));
    const text = Buffer.concat(chunks, received).toString('utf8');
    try {
      req.body = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      return settle(new BodyError(400, 'entity.parse.failed'));
    }
    settle();
  };
  // A client gone mid-body: nobody reads the answer, but the request must still end.
  req.once('error', () => settle(new BodyError(400, 'request.aborted')));
  if (length !== null && length > limit) return fail(new BodyError(413, 'entity.too.large'));
  req.on('data', onData).on('end', onEnd);
}

function parseStrictJson(text: string): unknown {
  if (text.length === 0) return {};
  const first = /^[\x20\x09\x0a\x0d]*(.|$)/s.exec(text)![1];
  if (first !== '{' && first !== '[') throw new SyntaxError('a JSON body must be an object or an array');
  return JSON.parse(text);
}
