import type { Response } from 'express';

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
