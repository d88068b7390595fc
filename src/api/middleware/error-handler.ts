import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, type ErrorKind } from '../../errors.js';
import { StoreUnavailableError } from '../../storage/blob-store.js';
import { sendJson, storeUnavailable } from '../respond.js';

const statusOf: Record<ErrorKind, number> = {
  bad_request: 400,
  invalid: 400,
  api_error: 400,
  unauthorized: 401,
  forbidden: 403,
  refused: 403,
  insufficient_scope: 403,
  not_found: 404,
  route_not_found: 404,
  not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unprocessable: 422,
  not_modified: 304,
  unavailable: 503,
};

/** GitLab's body for each kind (GITLAB-NOTES 1.3); `detail` is the AppError message. */
function bodyOf(error: AppError): unknown {
  const detail = error.message;
  switch (error.kind) {
    case 'invalid':
      return { message: error.fields };
    case 'api_error':
      return { message: { error: detail } };
    case 'insufficient_scope':
      return {
        error: 'insufficient_scope',
        error_description: 'The request requires higher privileges than provided by the access token.',
        scope: detail,
      };
    case 'route_not_found':
      return { error: '404 Not Found' };
    case 'not_found':
      return { message: detail ? `404 ${detail} Not Found` : '404 Not found' };
    case 'forbidden':
      return { message: detail ? `403 Forbidden - ${detail}` : '403 Forbidden' };
    case 'unauthorized':
      return { message: detail || '401 Unauthorized' };
    case 'not_allowed':
      return { message: detail || '405 Method Not Allowed' };
    case 'not_acceptable':
      return { message: detail || '406 Not Acceptable' };
    case 'conflict':
      // A fork's validation errors come back as the errors hash (GITLAB-NOTES 2.2 Fork).
      return { message: error.fields ?? (detail || '409 Conflict') };
    case 'precondition_failed':
      return { message: '412 Precondition Failed' };
    case 'payload_too_large':
      return { message: '413 Request Entity Too Large' };
    case 'unprocessable':
      return { message: detail || '422 Unprocessable Entity' };
    default:
      return { message: detail };
  }
}

/** Errors thrown by body parsers carry an HTTP status of their own; a malformed body is the caller's fault. */
function fromParser(error: { type?: string; status?: number; message?: string }): AppError | null {
  if (error.type === 'entity.too.large') return new AppError('payload_too_large');
  if (error.type === 'entity.parse.failed') return new AppError('bad_request', 'The request body is not valid JSON');
  if (typeof error.status === 'number' && error.status >= 400 && error.status < 500) {
    return new AppError('bad_request', error.type ? `The request body could not be read (${error.type})` : 'The request could not be read');
  }
  return null;
}

export const unknownRoute: RequestHandler = () => {
  throw new AppError('route_not_found');
};

/** The one place that turns errors into responses. Anything unexpected is a 500, logged with its request id. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    res.locals.route ??= routeOf(req);
    if (error instanceof StoreUnavailableError && !res.headersSent) {
      // A blob operation of a store that is down or slow: the rest of the API keeps serving.
      log.warn({ err: error, request_id: res.getHeader('X-Request-Id'), route: res.locals.route }, 'object store unavailable');
      res.setHeader('Retry-After', String(storeUnavailable.retryAfterSeconds));
      sendJson(res, 503, { message: storeUnavailable.message(error) });
      return;
    }
    const known = error instanceof AppError ? error : fromParser(error as never);
    if (res.headersSent) {
      log.error({ err: error, request_id: res.getHeader('X-Request-Id') }, 'error after response started');
      res.destroy();
      return;
    }
    if (!known) {
      log.error({ err: error, request_id: res.getHeader('X-Request-Id'), route: res.locals.route }, 'unhandled error');
      sendJson(res, 500, { message: '500 Internal Server Error' });
      return;
    }
    const status = statusOf[known.kind];
    if (status === 304) {
      res.status(304).end();
      return;
    }
    if (known.kind === 'insufficient_scope') {
      res.setHeader('WWW-Authenticate', `Bearer realm="Geoforge", error="insufficient_scope", scope="${known.message}"`);
    }
    sendJson(res, status, bodyOf(known));
  };
}

/** The route template for logs and metrics; a request stopped before routing (bad credentials, say) is named by its mount. */
export function routeOf(req: Request): string {
  if (req.route) return `${req.baseUrl}${String(req.route.path)}`;
  return req.baseUrl ? `${req.baseUrl}/*` : 'unmatched';
}
