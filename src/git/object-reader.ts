import { serveGit, type GitStream } from './cli.js';

/**
 * Objects read through one long-running `git cat-file --batch-command` per repository instead of a
 * git process per read: a spawn blocks the event loop for milliseconds (fork of a large process),
 * more than the read itself, and the hot API reads (a file, a tree, a ref's commit) ask for a few
 * objects each. Only full object names (and their `^{commit}`/`^{tree}` peels) are sent, so no
 * input can make git read a ref, a path or an option: ref names are resolved from the ref files
 * first (refs.ts). Objects are content-addressed, so a process never answers stale content; a new
 * pack written after it started is found because git rescans the pack directory on a miss.
 */

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface GitObject {
  readonly id: string;
  readonly type: ObjectType;
  readonly size: number;
  /** The object's bytes; absent for an `info` read. */
  readonly data?: Buffer;
}

/** What a reader accepts: a full hex object name, optionally peeled to a commit or a tree. */
const OBJECT_EXPRESSION = /^(?:[0-9a-f]{40}|[0-9a-f]{64})(?:\^\{(?:commit|tree)\})?$/;

/** Processes kept at most (one per repository, least recently used retired first). */
const MAX_READERS = 32;
/** A reader idle this long exits: a quiet repository holds no process. */
const IDLE_MS = 30_000;
/** A reader retires after this long even when busy (its successor starts fresh); the hard timeout is a safety net above it. */
const MAX_AGE_MS = 10 * 60_000;
const HARD_TIMEOUT_MS = MAX_AGE_MS + 5 * 60_000;
/** One read answers in well under this (a blob streams at pipe speed); past it the process is taken for hung. */
const READ_TIMEOUT_MS = 30_000;

interface Pending {
  readonly command: 'info' | 'contents';
  readonly resolve: (object: GitObject | null) => void;
  readonly reject: (error: Error) => void;
}

/** One `cat-file --batch-command` process: commands are written as they come and answered in order. */
class BatchReader {
  private readonly git: GitStream;
  private readonly pending: Pending[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The header of the object whose bytes are being received. */
  private receiving: { object: Omit<GitObject, 'data'>; pending: Pending } | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly bornAt = Date.now();
  closed = false;

  constructor(
    readonly repository: string,
    private readonly onClose: (reader: BatchReader) => void,
  ) {
    this.git = serveGit(['--git-dir', repository, 'cat-file', '--batch-command'], { timeoutMs: HARD_TIMEOUT_MS });
    this.git.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    this.git.done.then(
      () => this.fail(new Error(`git cat-file for ${this.repository} exited`)),
      (error: Error) => this.fail(error),
    );
  }

  /** Whether the reader should take new commands (not closed, not past its age). */
  get usable(): boolean {
    return !this.closed && Date.now() - this.bornAt < MAX_AGE_MS;
  }

  read(command: 'info' | 'contents', name: string): Promise<GitObject | null> {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    return new Promise<GitObject | null>((resolve, reject) => {
      // A git that stops answering is killed, as a hung read is (in-repository.ts): its reads fail over to a new one.
      const timer = setTimeout(() => this.kill(), READ_TIMEOUT_MS);
      const settle = () => clearTimeout(timer);
      this.pending.push({
        command,
        resolve: (object) => (settle(), resolve(object)),
        reject: (error) => (settle(), reject(error)),
      });
      this.git.stdin.write(`${command} ${name}\n`);
    });
  }

  /** Ends the process once its answers are in (stdin closed: git exits after the last command). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.git.stdin.end();
  }

  kill(): void {
    this.close();
    this.git.kill();
  }

  private receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.step());
    if (this.pending.length === 0 && !this.receiving && !this.closed) {
      if (this.idleTimer) clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => this.close(), this.usable ? IDLE_MS : 0);
      this.idleTimer.unref();
    }
  }

  /** Takes one header or one object's bytes off the buffer; false when more output is needed. */
  private step(): boolean {
    if (this.receiving) {
      const { object, pending } = this.receiving;
      // The bytes and git's newline after them.
      if (this.buffered < object.size + 1) return false;
      const data = this.take(object.size + 1).subarray(0, object.size);
      this.receiving = null;
      pending.resolve({ ...object, data });
      return true;
    }
    if (this.pending.length === 0 || this.buffered === 0) return false;
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [all];
    const newline = all.indexOf(10);
    if (newline < 0) return false;
    const header = this.take(newline + 1).toString('utf8', 0, newline);
    const pending = this.pending.shift()!;
    const [id, type, size] = header.split(' ');
    // `<name> missing` or `<name> ambiguous`: no such object.
    if (size === undefined || !/^\d+$/.test(size)) {
      pending.resolve(null);
      return true;
    }
    const object = { id: id!, type: type as ObjectType, size: Number(size) };
    if (pending.command === 'info') pending.resolve(object);
    else this.receiving = { object, pending };
    return true;
  }

  private take(bytes: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.chunks = rest.length ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }

  private fail(error: Error): void {
    this.close();
    const waiting = [...(this.receiving ? [this.receiving.pending] : []), ...this.pending.splice(0)];
    this.receiving = null;
    for (const pending of waiting) pending.reject(new ReaderGone(error));
  }
}

/** The reader's process went away before answering (killed, timed out, repository removed). */
class ReaderGone extends Error {
  constructor(cause: Error) {
    super(`git cat-file went away: ${cause.message}`, { cause });
  }
}

/** Live readers by repository, in least-recently-used order. */
const readers = new Map<string, BatchReader>();

function readerFor(repository: string): BatchReader {
  const existing = readers.get(repository);
  if (existing?.usable) {
    readers.delete(repository);
    readers.set(repository, existing);
    return existing;
  }
  existing?.close();
  const reader = new BatchReader(repository, (closed) => {
    if (readers.get(closed.repository) === closed) readers.delete(closed.repository);
  });
  readers.set(repository, reader);
  if (readers.size > MAX_READERS) readers.values().next().value!.close();
  return reader;
}

async function read(command: 'info' | 'contents', repository: string, name: string): Promise<GitObject | null> {
  if (!OBJECT_EXPRESSION.test(name)) throw new Error(`object reader: not a full object name: ${JSON.stringify(name)}`);
  try {
    return await readerFor(repository).read(command, name);
  } catch (error) {
    // A process that went away (retired, killed) is replaced once; a second failure is real.
    if (!(error instanceof ReaderGone)) throw error;
    return readerFor(repository).read(command, name);
  }
}

/** The object's id, type and size; null when the repository has no such object. */
export const objectInfo = (repository: string, name: string): Promise<GitObject | null> => read('info', repository, name);

/** The object with its bytes; null when the repository has no such object. */
export const readObject = (repository: string, name: string): Promise<GitObject | null> => read('contents', repository, name);

/** Ends the readers of the repositories under `root` (a site that stops), or every reader. */
export function closeObjectReaders(root?: string): void {
  for (const reader of [...readers.values()]) {
    if (root === undefined || reader.repository.startsWith(root)) reader.kill();
  }
}
