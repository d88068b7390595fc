// Limit baseline (a) of scenario 6: the minimal `git http-backend` CGI bridge. A node:http server
// that runs git's own smart-HTTP CGI for every request, with no auth and no routing of its own:
// GIT_PROJECT_ROOT and GIT_HTTP_EXPORT_ALL, the CGI environment, the request body piped to its
// stdin, and the CGI headers parsed from its output, the rest streamed back.
// Usage: node --import tsx git-http-backend-bridge.ts <project-root> <port>
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const [projectRoot, port] = process.argv.slice(2);

function cgiEnv(req: IncomingMessage, url: URL): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REMOTE_ADDR: req.socket.remoteAddress ?? '',
    CONTENT_TYPE: req.headers['content-type'] ?? '',
  };
  if (req.headers['content-length'] !== undefined) env.CONTENT_LENGTH = req.headers['content-length'];
  // Every request header as HTTP_*, as CGI does: http-backend reads HTTP_CONTENT_ENCODING and HTTP_GIT_PROTOCOL.
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value;
  }
  return env;
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://bridge');
  const child = spawn('git', ['http-backend'], { env: cgiEnv(req, url), stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  let head: Buffer | null = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    if (head === null) {
      if (!res.write(chunk)) {
        child.stdout.pause();
        res.once('drain', () => child.stdout.resume());
      }
      return;
    }
    head = Buffer.concat([head, chunk]);
    const crlf = head.indexOf('\r\n\r\n');
    const lf = head.indexOf('\n\n');
    const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf + 4 : lf >= 0 ? lf + 2 : -1;
    if (end < 0) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    const rest = head.subarray(end);
    head = null;
    if (rest.length) res.write(rest);
  });
  child.stdout.on('end', () => res.end());
  child.on('error', () => res.destroy());
  res.on('close', () => {
    if (!res.writableFinished) child.kill('SIGKILL');
  });
}

createServer(handle).listen(Number(port), '127.0.0.1');
