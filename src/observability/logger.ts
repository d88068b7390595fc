import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config.js';

const FLUSH_EVERY_MS = 250;

/**
 * One JSON line per event on stdout. Lines are buffered and written in batches (at 4 KiB or every
 * 250 ms, and at exit), so a busy site does not pay a write(2) per request. Credentials are
 * redacted wherever a caller might pass them in.
 */
export function createLogger(level: LogLevel): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => destination.flush(), FLUSH_EVERY_MS).unref();
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['password', 'token', 'secret', '*.password', '*.token', '*.secret', 'headers.authorization', 'headers["private-token"]', 'headers.cookie'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
