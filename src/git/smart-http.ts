import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { gitHooksDir } from '../storage/layout.js';
import { runGit, streamGit } from './cli.js';
import { isBlankSha } from './object-names.js';
import { cachedAdvertisement, keepAdvertisement, MAX_CACHED_BYTES, refsState } from './ref-advertisement-cache.js';

/** The two services of git's smart HTTP protocol. */
export type GitService = 'git-upload-pack' | 'git-receive-pack';

export const isGitService = (value: unknown): value is GitService => value === 'git-upload-pack' || value === 'git-receive-pack';

/** The git subcommand behind a service name. */
const subcommand = (service: GitService) => (service === 'git-upload-pack' ? 'upload-pack' : 'receive-pack');

/** One ref a push asked to change; `before`/`after` are all zeros for a created/deleted ref. */
export interface RefUpdate {
  readonly ref: string;
  readonly before: string;
  readonly after: string;
}

/** A pkt-line: four hex digits of length (themselves included), then the payload. */
export function pktLine(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'ascii'), body]);
}

export const FLUSH_PKT = Buffer.from('0000', 'ascii');

/** Headers git's own http-backend sends so no proxy caches a ref advertisement or a pack. */
export const NO_CACHE_HEADERS = {
  Expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  Pragma: 'no-cache',
  'Cache-Control': 'no-cache, max-age=0, must-revalidate',
} as const;

/**
 * The pre-receive hook git runs for pushes over HTTP: git's own mechanism, and the only place a
 * push can be refused after its objects arrived (in the quarantine, so a force push can be told
 * from a fast-forward) and before any ref moves; one refused command refuses the whole push. It
 * holds no user input and calls nothing back: geoforge resolves the project's protected branches
 * and tags for the pushing user before git starts and hands them over in GEOFORGE_REF_POLICY
 * (a large one in the file GEOFORGE_REF_POLICY_FILE names)
 * (services/repository/ref-policy.ts refPolicyText: `default <branch>`, `maintainer 0|1`,
 * `branch <may push 0|1> <pattern>`, `tag <may create 0|1> <pattern>`), and the hook applies
 * GitLab's rules (the same as refChangeRefusal there) with sh builtins; only a protected branch
 * moved by a push spawns one `git merge-base`. Ref names hold no whitespace and no glob
 * character but `*` (git check-ref-format), so a pattern is a `case` glob as it stands.
 */
const PRE_RECEIVE = `#!/bin/sh
# Written by geoforge (src/git/smart-http.ts); rewritten at every start. Do not edit.
policy="$GEOFORGE_REF_POLICY"
if [ -n "$GEOFORGE_REF_POLICY_FILE" ]; then policy="$(cat "$GEOFORGE_REF_POLICY_FILE")" || exit 1; fi
[ -n "$policy" ] || exit 0
refuse() { echo "GitLab: $1" >&2; exit 1; }
zero() { case "$1" in *[!0]*) return 1 ;; *) return 0 ;; esac; }
default=""; maintainer=0
while read -r kind value rest; do
  case "$kind" in default) default="$value" ;; maintainer) maintainer="$value" ;; esac
done <<POLICY
$policy
POLICY
# Sets matched=1 when a rule of kind $1 covers name $2, and allowed=1 when one of those allows.
match() {
  matched=0; allowed=0
  while read -r kind flag pattern; do
    [ "$kind" = "$1" ] || continue
    case "$2" in
      $pattern) matched=1; [ "$flag" = 1 ] && allowed=1 ;;
    esac
  done <<POLICY
$policy
POLICY
}
while read -r old new ref; do
  case "$ref" in
    refs/heads/*)
      name="\${ref#refs/heads/}"
      if zero "$new" && [ "$name" = "$default" ]; then refuse "The default branch of a project cannot be deleted."; fi
      match branch "$name"
      [ "$matched" = 1 ] || continue
      if ! zero "$old" && ! zero "$new" && ! git merge-base --is-ancestor "$old" "$new"; then
        refuse "You are not allowed to force push code to a protected branch on this project."
      fi
      if zero "$new"; then
        [ "$maintainer" = 1 ] || refuse "You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch."
        refuse "You can only delete protected branches using the web interface."
      fi
      [ "$allowed" = 1 ] || refuse "You are not allowed to push code to protected branches on this project."
      ;;
    refs/tags/*)
      name="\${ref#refs/tags/}"
      if ! zero "$old" && [ "$maintainer" != 1 ]; then refuse "You are not allowed to change existing tags on this project."; fi
      match tag "$name"
      [ "$matched" = 1 ] || continue
      if zero "$new"; then refuse "Protected tags cannot be deleted."; fi
      if ! zero "$old"; then refuse "Protected tags cannot be updated."; fi
      [ "$allowed" = 1 ] || refuse "You are not allowed to create this tag as it is protected."
      ;;
  esac
done
exit 0
`;

const hookDirs = new Map<string, Promise<string>>();

/**
 * The hooks directory given to receive-pack as core.hooksPath: one for the whole site under the
 * data dir, so every repository (created, forked, imported) gets the same hook without a copy in
 * each. Written once per process, atomically (a running push never sees half a file).
 */
export function siteHooksDir(dataDir: string): Promise<string> {
  let pending = hookDirs.get(dataDir);
  if (!pending) {
    pending = (async () => {
      const dir = gitHooksDir(dataDir);
      await mkdir(dir, { recursive: true });
      const staging = path.join(dir, `.pre-receive.${process.pid}`);
      await writeFile(staging, PRE_RECEIVE, { mode: 0o755 });
      await rename(staging, path.join(dir, 'pre-receive'));
      return dir;
    })();
    pending.catch(() => hookDirs.delete(dataDir));
    hookDirs.set(dataDir, pending);
  }
  return pending;
}

/** What a `Git-Protocol` header may hold: colon-separated `key=value` words (`version=2`). */
const GIT_PROTOCOL_VALUE = /^[A-Za-z0-9._-]+(?:=[A-Za-z0-9._-]*)?(?::[A-Za-z0-9._-]+(?:=[A-Za-z0-9._-]*)?)*$/;
const GIT_PROTOCOL_MAX_LENGTH = 256;

/**
 * The client's `Git-Protocol` header, to hand to git as GIT_PROTOCOL (what git's own http-backend
 * does with it): how a client asks for protocol v1 or v2. Null when absent, or when it is not the
 * `key=value[:key=value]` list git reads (git then speaks v0, as to a client that sent nothing).
 */
export function gitProtocolOf(header: string | string[] | undefined): string | null {
  const value = Array.isArray(header) ? header.join(':') : header;
  if (!value || value.length > GIT_PROTOCOL_MAX_LENGTH || !GIT_PROTOCOL_VALUE.test(value)) return null;
  return value;
}

/** The protocol version git serves for a GIT_PROTOCOL value: the highest `version=N` it names, as git's protocol.c reads it. */
function protocolVersion(gitProtocol: string | null): number {
  let version = 0;
  for (const word of gitProtocol?.split(':') ?? []) {
    const match = /^version=(\d)$/.exec(word);
    if (match && Number(match[1]) > version) version = Number(match[1]);
  }
  return version;
}

const protocolEnv = (gitProtocol: string | null): Record<string, string> => (gitProtocol ? { GIT_PROTOCOL: gitProtocol } : {});

/**
 * The body of `GET info/refs?service=…`: the `# service=` pkt-line and a flush, then git's own
 * advertisement, streamed to `output` (which is left open: the caller ends it). With the client's
 * `Git-Protocol` (gitProtocolOf) git answers in the version asked for; a v2 upload-pack answer
 * is git's capability list alone, without the `# service=` line, as git's http-backend sends it.
 */
export async function advertiseRefs(repository: string, service: GitService, output: Writable, gitProtocol: string | null = null): Promise<void> {
  // receive-pack has no v2 and answers a v2 request in v0, which starts with the service line.
  if (service === 'git-receive-pack' || protocolVersion(gitProtocol) < 2) output.write(Buffer.concat([pktLine(`# service=${service}\n`), FLUSH_PKT]));
  if (service === 'git-receive-pack') {
    await pipeAdvertisement(repository, service, output, gitProtocol, null);
    return;
  }
  // upload-pack (every clone and fetch): from memory while the refs are as git last saw them.
  const key = `${repository}\0${gitProtocol ?? ''}`;
  const state = await refsState(repository);
  const cached = state === null ? null : cachedAdvertisement(key, state);
  if (cached) {
    output.write(cached);
    return;
  }
  const kept = await pipeAdvertisement(repository, service, output, gitProtocol, MAX_CACHED_BYTES);
  // Kept only when the refs did not move while git read them: the bytes then describe `state`.
  if (kept && state !== null && (await refsState(repository)) === state) keepAdvertisement(key, state, kept);
}

/** Streams git's own advertisement to `output`; resolves with its bytes when they fit in `keepUpTo` (null otherwise). */
async function pipeAdvertisement(repository: string, service: GitService, output: Writable, gitProtocol: string | null, keepUpTo: number | null): Promise<Buffer | null> {
  const git = streamGit([subcommand(service), '--stateless-rpc', '--advertise-refs', repository], { timeoutMs: 60_000, env: protocolEnv(gitProtocol) });
  git.stdin.end();
  const piped = pipeline(git.stdout, output, { end: false });
  // A second reader of the same chunks, attached after the pipe so no chunk can pass before either.
  const chunks: Buffer[] = [];
  let size = 0;
  if (keepUpTo !== null) {
    git.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= keepUpTo) chunks.push(chunk);
    });
  }
  await Promise.all([piped, git.done]);
  return keepUpTo !== null && size <= keepUpTo ? Buffer.concat(chunks) : null;
}

/** Upper bound on a push's command list kept for parsing; beyond it the commands are not reported (the push still runs). */
const MAX_COMMAND_BYTES = 1024 * 1024;

/**
 * Passes a receive-pack request through unchanged while reading its command list (the pkt-lines
 * `<old> <new> <ref>` before the first flush); the pack after it is never held.
 */
export class PushCommandReader extends Transform {
  readonly commands: RefUpdate[] = [];
  /** False when the list could not be read whole (too long, a push certificate, garbage). */
  complete = true;
  private pending: Buffer | null = Buffer.alloc(0);

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.pending) this.parse(Buffer.concat([this.pending, chunk]));
    callback(null, chunk);
  }

  private parse(buffer: Buffer): void {
    let at = 0;
    while (buffer.length - at >= 4) {
      const length = Number.parseInt(buffer.subarray(at, at + 4).toString('ascii'), 16);
      if (Number.isNaN(length)) return this.giveUp();
      if (length === 0) {
        this.pending = null;
        return;
      }
      if (length < 4) return this.giveUp();
      if (buffer.length - at < length) break;
      const line = buffer.subarray(at + 4, at + length).toString('utf8').split('\0')[0]!.replace(/\n$/, '');
      at += length;
      if (line.startsWith('shallow ')) continue;
      const match = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) (.+)$/.exec(line);
      if (!match) return this.giveUp();
      this.commands.push({ before: match[1]!, after: match[2]!, ref: match[3]! });
    }
    this.pending = buffer.subarray(at);
    if (this.pending.length > MAX_COMMAND_BYTES) this.giveUp();
  }

  private giveUp(): void {
    this.complete = false;
    this.pending = null;
  }
}

export interface RpcOptions {
  readonly repository: string;
  readonly service: GitService;
  /** The request body, gzip-encoded when `gzip`. */
  readonly body: Readable;
  readonly gzip: boolean;
  /** Where git's result is streamed; left open for the caller to end. */
  readonly output: Writable;
  /** receive-pack only: the hooks directory (siteHooksDir) and the pushing user's ref policy its pre-receive hook applies. */
  readonly hooksDir?: string;
  readonly refPolicy?: string;
  /** The client's `Git-Protocol` (gitProtocolOf): a v2 client's requests are v2 commands (ls-refs, fetch). */
  readonly gitProtocol?: string | null;
  readonly signal?: AbortSignal;
}

/**
 * Runs `git <service> --stateless-rpc <repository>` with the request body streamed to its stdin
 * (gunzipped on the way when needed) and its stdout streamed to `output`. For receive-pack,
 * resolves to the ref updates that were applied (each command checked against the refs after git
 * exited, so refused ones are left out); for upload-pack, to [].
 */
export async function serviceRpc(options: RpcOptions): Promise<RefUpdate[]> {
  const receive = options.service === 'git-receive-pack';
  const policy = receive && options.refPolicy && options.hooksDir ? await policyEnv(options.hooksDir, options.refPolicy) : null;
  try {
    return await runServiceRpc(options, policy?.env ?? {});
  } finally {
    await policy?.cleanup();
  }
}

/**
 * Above this many bytes the policy goes to the hook in a file: one environment string may not
 * pass 128 KiB on Linux (MAX_ARG_STRLEN), and a project may protect many long patterns.
 */
const POLICY_ENV_MAX_BYTES = 32 * 1024;

/** The hook's policy as environment: inline (GEOFORGE_REF_POLICY), or a file beside the hook for a large one (GEOFORGE_REF_POLICY_FILE), removed after the push. */
async function policyEnv(hooksDir: string, policy: string): Promise<{ env: Record<string, string>; cleanup(): Promise<void> }> {
  if (Buffer.byteLength(policy) <= POLICY_ENV_MAX_BYTES) return { env: { GEOFORGE_REF_POLICY: policy }, cleanup: async () => undefined };
  const dir = await mkdtemp(path.join(hooksDir, '.policy-'));
  const file = path.join(dir, 'policy');
  await writeFile(file, policy, { mode: 0o600 });
  return { env: { GEOFORGE_REF_POLICY_FILE: file }, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function runServiceRpc(options: RpcOptions, policyEnvironment: Record<string, string>): Promise<RefUpdate[]> {
  const receive = options.service === 'git-receive-pack';
  const config = receive && options.hooksDir ? ['-c', `core.hooksPath=${options.hooksDir}`] : [];
  const git = streamGit([...config, subcommand(options.service), '--stateless-rpc', options.repository], {
    signal: options.signal,
    env: { ...protocolEnv(options.gitProtocol ?? null), ...policyEnvironment },
  });
  const reader = receive ? new PushCommandReader() : null;
  const stages: (Readable | Writable | Transform)[] = [options.body];
  if (options.gzip) stages.push(createGunzip());
  if (reader) stages.push(reader);
  const input = (pipeline as (...streams: unknown[]) => Promise<void>)(...stages, git.stdin);
  try {
    await Promise.all([input, pipeline(git.stdout, options.output, { end: false }), git.done]);
  } catch (error) {
    git.kill();
    throw error;
  }
  if (!reader || reader.commands.length === 0) return [];
  return appliedUpdates(options.repository, reader.commands);
}

/** The commands whose ref now holds the new value (absent for a deletion): what the push changed. */
export async function appliedUpdates(repository: string, commands: readonly RefUpdate[]): Promise<RefUpdate[]> {
  const { stdout } = await runGit(['--git-dir', repository, 'for-each-ref', '--format=%(objectname) %(refname)']);
  const current = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) current.set(line.slice(space + 1), line.slice(0, space));
  }
  return commands.filter((command) => (isBlankSha(command.after) ? !current.has(command.ref) : current.get(command.ref) === command.after));
}
