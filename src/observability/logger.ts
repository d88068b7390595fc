import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config.js';

/** One JSON line per event. Credentials are redacted wherever a caller might pass them in. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    base: undefined,
    redact: {
      paths: ['password', 'token', 'secret', '*.password', '*.token', '*.secret', 'headers.authorization', 'headers["private-token"]', 'headers.cookie'],
      censor: '[redacted]',
    },
  });
}
