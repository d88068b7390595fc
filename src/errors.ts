/** Field errors in GitLab's validation shape: `{title: ["is too long"]}`. */
export type FieldErrors = Record<string, string[]>;

/**
 * The closed set of failure kinds. Services throw these and never pick an HTTP status;
 * api/middleware/error-handler.ts owns the kind -> status table and the body shapes.
 */
export type ErrorKind =
  | 'bad_request' // a parameter is missing or malformed: {message: "email is missing"}
  | 'invalid' // model validation: {message: {field: [texts]}}
  | 'api_error' // GitLab's render_api_error!({error: text}, 400): {message: {error: "Label not found!"}}
  | 'unauthorized'
  | 'forbidden'
  | 'refused' // GitLab's render_api_error!(text, 403): {message: "You cannot ban blocked users."}
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
  readonly fields: FieldErrors | null;

  constructor(kind: ErrorKind, detail: string | FieldErrors = '', options?: { cause?: unknown }) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail), options);
    this.kind = kind;
    this.fields = typeof detail === 'string' ? null : detail;
  }
}

export const notFound = (resource = ''): AppError => new AppError('not_found', resource);
export const forbidden = (reason = ''): AppError => new AppError('forbidden', reason);
export const refused = (message: string): AppError => new AppError('refused', message);
export const badRequest = (message: string): AppError => new AppError('bad_request', message);
export const invalid = (fields: FieldErrors): AppError => new AppError('invalid', fields);
/** 400 in the shape GitLab's boards and epic issues answer with render_api_error! (GITLAB-NOTES 1.3). */
export const apiError = (text: string): AppError => new AppError('api_error', text);
export const conflict = (message: string): AppError => new AppError('conflict', message);
