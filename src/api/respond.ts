import type { Response } from 'express';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { notFound } from '../errors.js';

/**
 * Writes a JSON body with `Content-Type: application/json` exactly: python-gitlab compares the
 * header literally and express's res.json() would add a charset (GITLAB-NOTES W1).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', payload.length);
  res.end(payload);
}

export function sendNoContent(res: Response): void {
  res.statusCode = 204;
  res.end();
}

/** Streams a stored file with its length and a type from its extension; 404 `<resource>` when it is gone from disk. */
export async function sendStoredFile(res: Response, file: string, resource: string): Promise<void> {
  const info = await stat(file).catch(() => null);
  if (!info) throw notFound(resource);
  res.setHeader('Content-Length', info.size);
  res.type(path.extname(file));
  createReadStream(file).pipe(res);
}
