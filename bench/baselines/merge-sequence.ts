// Limit baseline of the mr-merge scenario: node:http answering POST /merge?branch=<name> by running
// the git sequence a merge needs and nothing else, on a bare repository: rev-parse of the target,
// `git merge-tree --write-tree` (the mergeability check and the merged tree in one), `git
// commit-tree` with the two parents and a message, and `git update-ref <ref> <new> <old>` (the
// compare-and-swap). No database, no auth, no hooks, no events.
// Usage: node --import tsx merge-sequence.ts <bare-repository> <port>
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';

const [repository, port] = process.argv.slice(2);
const TARGET = 'refs/heads/master';

function git(args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', ['--git-dir', repository!, ...args], (error, stdout) => (error ? reject(error) : resolve(stdout.trim())));
    if (input !== undefined) child.stdin!.end(input);
  });
}

async function merge(branch: string): Promise<string> {
  const target = await git(['rev-parse', TARGET]);
  const source = await git(['rev-parse', `refs/heads/${branch}`]);
  const tree = (await git(['merge-tree', '--write-tree', '--no-messages', target, source])).split('\n')[0]!;
  const commit = await git(['commit-tree', tree, '-p', target, '-p', source, '-F', '-'], `Merge branch '${branch}' into 'master'\n`);
  await git(['update-ref', TARGET, commit, target]);
  return commit;
}

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname === '/ready') return void res.writeHead(200).end('ok');
  const branch = url.searchParams.get('branch');
  if (req.method !== 'POST' || url.pathname !== '/merge' || !branch) return void res.writeHead(404).end();
  req.resume();
  merge(branch).then(
    (sha) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sha })),
    (error: Error) => res.writeHead(500).end(error.message),
  );
}).listen(Number(port), '127.0.0.1');
