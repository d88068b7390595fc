import busboy from 'busboy';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import qs from 'qs';
import { AppError, badRequest } from '../../errors.js';
import { MAX_BODY_BYTES, MAX_UPLOAD_BYTES } from '../../storage/limits.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { isPlainJson, readJsonBody } from './json-body.js';

const QS_OPTIONS = { arrayLimit: 1000, parameterLimit: 5000, depth: 3 } as const;

/** The query parser of the app: `key[]=` arrays, `key[sub]=` hashes, `+` as a space (GITLAB-NOTES W5, W6). */
export const parseQuery = (text: string): Record<string, unknown> => qs.parse(text, QS_OPTIONS);

/**
 * One middleware: body parsers for JSON, urlencoded and multipart, then one merged `req.input`:
 * query first, body over it; JSON nulls mean "not given" (W7) and empty multipart parts are
 * dropped (W10). Reads carry their parameters in the query string, so they skip the parsers; a
 * plain JSON body, what almost every write sends, is read without body-parser (json-body.ts).
 */
export function parseInput(tmpDir: string): RequestHandler {
  const parsers: RequestHandler[] = [
    express.json({ limit: MAX_BODY_BYTES, type: ['application/json', 'application/*+json'] }),
    express.urlencoded({ extended: true, limit: MAX_BODY_BYTES, parameterLimit: QS_OPTIONS.parameterLimit }),
    multipart(tmpDir),
  ];
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return mergeInput(req, res, next);
    if (isPlainJson(req)) return readJsonBody(req, MAX_BODY_BYTES, (error) => (error ? next(error) : mergeInput(req, res, next)));
    const run = (index: number): void => {
      if (index === parsers.length) return mergeInput(req, res, next);
      parsers[index](req, res, (error?: unknown) => (error ? next(error) : run(index + 1)));
    };
    run(0);
  };
}

function mergeInput(req: Request, _res: Response, next: NextFunction): void {
  const input: Record<string, unknown> = {};
  const add = (source: unknown) => {
    if (!source || typeof source !== 'object' || Array.isArray(source)) return;
    for (const [key, value] of Object.entries(source)) if (value !== null) input[key] = value;
  };
  add(req.query);
  add(req.body);
  req.input = input;
  req.files ??= [];
  next();
}

/**
 * Multipart bodies: fields into `req.body`, files streamed to `tmpDir`. A body the client cut short
 * or malformed is its fault, so it is a 400 whichever stream notices first (the parser, or a file
 * part's stream before or during its write); only a failure to write to our own disk is a 500.
 */
function multipart(tmpDir: string): RequestHandler {
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    const fields = new URLSearchParams();
    const files: UploadedFile[] = [];
    const writes: Promise<void>[] = [];
    let failure: AppError | null = null;
    let malformed = false;
    let settled = false;
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      next(error);
    };
    const refuse = () => {
      malformed = true;
      req.unpipe(parser);
      req.resume();
      settle(badRequest('multipart body is malformed'));
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers, limits: { fileSize: MAX_UPLOAD_BYTES, files: 10, fields: 1000 } });
    } catch {
      return next(badRequest('multipart body is malformed'));
    }
    res.on('close', () => {
      for (const file of files) rm(file.path, { force: true }).catch(() => undefined);
    });
    parser.on('field', (name, value) => {
      if (value !== '') fields.append(name, value);
    });
    parser.on('file', (field, stream, info) => {
      // Listening at once: a part cut short errors before its write below is piped.
      stream.on('error', refuse);
      const filename = info.filename;
      if (!filename) {
        stream.resume();
        return;
      }
      const target = path.join(tmpDir, `upload-${randomUUID()}`);
      stream.on('limit', () => (failure = new AppError('payload_too_large')));
      writes.push(
        mkdir(tmpDir, { recursive: true })
          .then(() => pipeline(stream, createWriteStream(target)))
          .then(async () => {
            const { size } = await stat(target);
            // An empty part is the stray `avatar`/`file` field python-gitlab adds (W10).
            if (size === 0) return rm(target, { force: true });
            files.push({ field, filename: path.basename(filename), mimetype: info.mimeType, path: target, size });
          })
          .catch(async (error: unknown) => {
            await rm(target, { force: true });
            if (!malformed) throw error;
          }),
      );
    });
    parser.on('error', refuse);
    parser.on('close', () => {
      Promise.all(writes).then(
        () => {
          if (malformed) return;
          if (failure) return settle(failure);
          req.body = parseQuery(fields.toString());
          req.files = files;
          settle();
        },
        (error: unknown) => settle(new Error('store multipart upload', { cause: error })),
      );
    });
    req.pipe(parser);
  };
}
