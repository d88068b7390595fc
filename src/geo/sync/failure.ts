import type { FailureType } from '../registry/queue.js';

/** A sync that failed for a reason the registry records as such (not a plain `sync` error). */
export class SyncFailure extends Error {
  constructor(
    readonly failureType: FailureType,
    message: string,
    readonly missingOnPrimary = false,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What the registry keeps of any error: its type, whether the primary lacks the item, and the real text (with its causes). */
export function describeFailure(error: unknown): { failureType: FailureType; message: string; missingOnPrimary: boolean } {
  // A cause whose text its wrapper already quotes adds nothing.
  const parts: string[] = [];
  for (let current: unknown = error; current instanceof Error && parts.length < 4; current = current.cause) {
    const text = current.message;
    if (!parts.some((part) => part.includes(text))) parts.push(text);
  }
  const message = parts.join(': ') || String(error);
  return error instanceof SyncFailure
    ? { failureType: error.failureType, message, missingOnPrimary: error.missingOnPrimary }
    : { failureType: 'sync', message, missingOnPrimary: false };
}
