/** Field errors in GitLab's validation shape: `{title: ["is too long"]}`. */
export type FieldErrors = Record<string, string[]>;

/** The body of GitLab's `render_api_error!({error: ...}, 400)` (boards, epic issues): `{message: {error: "Issue could not be moved!"}}`. */
export interface ApiErrorDetail {
  readonly error: string;
}

/**
 * The closed set of failure kinds. Services throw these and never pick an HTTP status;
 * api/middleware/error-handler.ts owns the kind -> status table and the body shapes.
 */
export type ErrorKind =
  | 'bad_request' // a parameter is missing or malformed: {message: "email is missing"}
  | 'invalid' // model validation: {message: {field: [texts]}}
  | 'unauthorized'
  | 'forbidden'
  | 'insufficient_scope'
  | 'not_found' // detail names the resource: "404 Project Not Found"
  | 'route_not_found'
  | 'not_allowed'
  | 'not_acceptable'
  | 'conflict'
  | 'precondition_failed'
  | 'unprocessable'
  | 'not_modified'
  | 'payload_too_large'
  | 'unavailable';

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly fields: FieldErrors | ApiErrorDetail | null;

  constructor(kind: ErrorKind, detail: string | FieldErrors | ApiErrorDetail = '', options?: { cause?: unknown }) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail), options);
    this.kind = kind;
    this.fields = typeof detail === 'string' ? null : detail;
  }
}

export const notFound = (resource = ''): AppError => new AppError('not_found', resource);
export const forbidden = (reason = ''): AppError => new AppError('forbidden', reason);
export const badRequest = (message: string): AppError => new AppError('bad_request', message);
export const invalid = (fields: FieldErrors | ApiErrorDetail): AppError => new AppError('invalid', fields);
export const conflict = (message: string): AppError => new AppError('conflict', message);
