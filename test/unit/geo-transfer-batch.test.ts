import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PrimaryClient, PrimaryError, type FileTransfer } from '../../src/geo/agent/primary-client.js';
import { FILE_BATCH_CONTENT_TYPE, FileBatchFormatError, decodeFileBatch, type FileBatchHeader } from '../../src/geo/transfer-batch.js';
import { batchBody } from '../helpers/geo-blobs.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function decodeAll(chunks: Buffer[], keep: (header: { size: number }) => boolean = () => true) {
  const parts: Array<{ header: FileBatchHeader; data: Buffer }> = [];
  for await (const { header, chunks: bytes } of decodeFileBatch(Readable.from(chunks), keep)) parts.push({ header, data: Buffer.concat(bytes) });
  return parts;
}

describe('decodeFileBatch', () => {
  const files = [
    { type: 'lfs', id: 1, data: randomBytes(3000) },
    { type: 'attachment', id: 2, data: Buffer.alloc(0) },
    { type: 'lfs', id: 3, data: null },
    { type: 'job_artifact', id: 4, data: Buffer.from('x\ny\n') },
  ];
  const body = batchBody(files);

  it('splits parts whatever the chunk boundaries, byte by byte included', async () => {
    for (const size of [1, 7, 4096, body.length]) {
      const chunks = Array.from({ length: Math.ceil(body.length / size) }, (_, i) => body.subarray(i * size, (i + 1) * size));
      const parts = await decodeAll(chunks);
      expect(parts.map(({ header }) => header)).toEqual([
        { type: 'lfs', id: 1, size: 3000, sha256: sha256(files[0]!.data!) },
        { type: 'attachment', id: 2, size: 0, sha256: sha256(Buffer.alloc(0)) },
        { type: 'lfs', id: 3, status: 404, message: '404 LFS Object Not Found', geo_code: 'FILE_NOT_FOUND' },
        { type: 'job_artifact', id: 4, size: 4, sha256: sha256(files[3]!.data!) },
      ]);
      expect(parts.map(({ data }) => sha256(data))).toEqual([files[0]!.data!, Buffer.alloc(0), Buffer.alloc(0), files[3]!.data!].map((data) => sha256(data)));
    }
  });

  it('skips the bytes of a part it is told not to keep, and reads on after it', async () => {
    const parts = await decodeAll([body], (header) => header.size !== 3000);
    expect(parts.map(({ data }) => data.length)).toEqual([0, 0, 0, 4]);
    expect(parts[3]!.data.toString()).toBe('x\ny\n');
  });

  it('refuses a body that ends inside a part, a header that is not JSON, malformed or endless', async () => {
    await expect(decodeAll([body.subarray(0, body.length - 1)])).rejects.toThrow(new FileBatchFormatError('the file batch ended inside a part'));
    await expect(decodeAll([body.subarray(0, 10)])).rejects.toThrow(FileBatchFormatError);
    await expect(decodeAll([Buffer.from('not json\n')])).rejects.toThrow('a part header of the file batch is not JSON');
    await expect(decodeAll([Buffer.from('{"type":"lfs","id":1,"size":-1,"sha256":"x"}\n')])).rejects.toThrow(/is malformed/);
    await expect(decodeAll([Buffer.from('{"type":"lfs","id":"1","size":1,"sha256":"x"}\nx')])).rejects.toThrow(/is malformed/);
    await expect(decodeAll([Buffer.alloc(5000, 'a')])).rejects.toThrow('a part header of the file batch is longer than 4096 bytes');
  });
});

describe('PrimaryClient file transfers', () => {
  const SECRET = 'a-secret-for-batch-tests';
  const stored = new Map<string, Buffer>([
    ['lfs:1', randomBytes(65_536)],
    ['lfs:2', Buffer.from('two')],
    ['attachment:3', randomBytes(1000)],
    ['lfs:9', randomBytes(2 * 1024 * 1024)],
  ]);
  const requests: string[] = [];
  let answer: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | null = null;
  let server: http.Server;
  let client: PrimaryClient;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      requests.push(req.url!);
      if (answer?.(req, res)) return;
      const url = new URL(req.url!, 'http://primary');
      const single = /^\/api\/v4\/geo\/transfers\/(\w+)\/(\d+)$/.exec(url.pathname);
      if (single) {
        const data = stored.get(`${single[1]}:${single[2]}`)!;
        res.writeHead(200, { 'content-length': data.length, 'x-geo-sha256': sha256(data) }).end(data);
        return;
      }
      const files = url.searchParams.get('files')!.split(',').map((entry) => ({ entry, data: stored.get(entry) ?? null }));
      const body = batchBody(files.map(({ entry, data }) => ({ type: entry.split(':')[0]!, id: Number(entry.split(':')[1]), data })));
      res.writeHead(200, { 'content-type': FILE_BATCH_CONTENT_TYPE, 'content-length': body.length });
      // In two writes, so that a part straddles them.
      res.write(body.subarray(0, 70_000));
      setTimeout(() => res.end(body.subarray(70_000)), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new PrimaryClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, SECRET, () => 'secondary-1');
  });
  afterEach(() => {
    requests.length = 0;
    answer = null;
  });
  afterAll(async () => {
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  const bytesOf = async (transfer: FileTransfer) => {
    const chunks: Buffer[] = [];
    for await (const chunk of transfer.body) chunks.push(chunk);
    return Buffer.concat(chunks);
  };

  it('asks for the small files of one turn in one batch request and a large file on its own', async () => {
    const [one, two, three, large] = await Promise.all([
      client.transfer('lfs', 1, 65_536),
      client.transfer('lfs', 2, 3),
      client.transfer('attachment', 3, 1000),
      client.transfer('lfs', 9, 2 * 1024 * 1024),
    ]);
    expect(requests.sort()).toEqual(['/api/v4/geo/transfers/lfs/9', '/api/v4/geo/transfers?files=lfs:1,lfs:2,attachment:3']);
    for (const [transfer, key] of [[one, 'lfs:1'], [two, 'lfs:2'], [three, 'attachment:3'], [large, 'lfs:9']] as const) {
      const data = stored.get(key)!;
      expect(transfer).toMatchObject({ sha256: sha256(data), size: data.length });
      expect(sha256(await bytesOf(transfer))).toBe(sha256(data));
    }
  });

  it("fails a file the primary lacks with its 404, and a file of another size without holding its bytes; the others arrive", async () => {
    const results = await Promise.allSettled([client.transfer('lfs', 404, 10), client.transfer('lfs', 1, 100), client.transfer('lfs', 2, 3)]);
    expect(requests).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'rejected', reason: { status: 404, message: 'primary answered 404 to GET /transfers/lfs/404: {"message":"404 LFS Object Not Found","geo_code":"FILE_NOT_FOUND"}' } });
    expect(results[0].status === 'rejected' && results[0].reason).toBeInstanceOf(PrimaryError);
    const resized = results[1].status === 'fulfilled' ? results[1].value : null;
    expect(resized).toMatchObject({ size: 65_536, sha256: sha256(stored.get('lfs:1')!) });
    expect(await bytesOf(resized!)).toEqual(Buffer.alloc(0));
    expect(results[2].status === 'fulfilled' && (await bytesOf(results[2].value))).toEqual(Buffer.from('two'));
  });

  it('lets an interrupted sync go at once while the rest of its batch arrives', async () => {
    const abort = new AbortController();
    const interrupted = client.transfer('lfs', 1, 65_536, abort.signal);
    const other = client.transfer('lfs', 2, 3, new AbortController().signal);
    abort.abort(new Error('site stopping'));
    await expect(interrupted).rejects.toThrow('site stopping');
    expect(await bytesOf(await other)).toEqual(Buffer.from('two'));
  });

  it('fetches each file alone from a primary that predates batches (404 for the route), and the next ones too', async () => {
    answer = (req, res) => {
      if (!req.url!.includes('?files=')) return false;
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"404 Not Found"}');
      return true;
    };
    const older = new PrimaryClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, SECRET, () => 'secondary-1');
    try {
      const [one, two] = await Promise.all([older.transfer('lfs', 1, 65_536), older.transfer('lfs', 2, 3)]);
      expect(sha256(await bytesOf(one))).toBe(sha256(stored.get('lfs:1')!));
      expect(await bytesOf(two)).toEqual(Buffer.from('two'));
      expect(await bytesOf(await older.transfer('attachment', 3, 1000))).toHaveLength(1000);
      expect(requests.sort()).toEqual(['/api/v4/geo/transfers/attachment/3', '/api/v4/geo/transfers/lfs/1', '/api/v4/geo/transfers/lfs/2', '/api/v4/geo/transfers?files=lfs:1,lfs:2']);
    } finally {
      await older.close();
    }
  });

  it('fails every file of a batch that fails as a whole with its text and no status (no answer about any one file)', async () => {
    answer = (_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"503 Service Unavailable"}');
      return true;
    };
    const results = await Promise.allSettled([client.transfer('lfs', 1, 65_536), client.transfer('lfs', 2, 3)]);
    for (const result of results) {
      expect(result).toMatchObject({ status: 'rejected', reason: { status: null, message: 'primary answered 503 to GET /transfers (a batch of 2 files): {"message":"503 Service Unavailable"}' } });
    }

    answer = (_req, res) => {
      const body = batchBody([{ type: 'lfs', id: 2, data: Buffer.from('two') }]);
      res.writeHead(200, { 'content-type': FILE_BATCH_CONTENT_TYPE });
      res.end(body.subarray(0, body.length - 1));
      return true;
    };
    await expect(client.transfer('lfs', 2, 3)).rejects.toMatchObject({ status: null, message: 'transfer batch failed (GET /transfers (a batch of 1 files)): the file batch ended inside a part' });

    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': FILE_BATCH_CONTENT_TYPE });
      res.end(batchBody([{ type: 'lfs', id: 1, data: stored.get('lfs:1')! }]));
      return true;
    };
    const [sent, left] = await Promise.allSettled([client.transfer('lfs', 1, 65_536), client.transfer('lfs', 2, 3)]);
    expect(sent.status).toBe('fulfilled');
    expect(left).toMatchObject({ status: 'rejected', reason: { status: null, message: "transfer batch failed (GET /transfers (a batch of 2 files)): the primary's answer lacks 1 of the files" } });
  });
});
