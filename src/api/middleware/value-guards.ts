import type { Request } from 'express';
import type { SiteContext } from '../../site-context.js';
import { badRequest } from '../../errors.js';
import { pathInt, readParams, type Parsed, type Schema } from '../params.js';
import { assertAvatar } from '../../services/avatars.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import type { Guard } from '../routes.js';

/**
 * A guard that yields a value for the guards after it and the handler: a route's parameters, read
 * where the route lists them (GitLab checks declared parameters, 400, before it authorizes, 403),
 * or a subject loaded after an ability (a job of the project). Read once per request.
 */
export interface ValueGuard<T> extends Guard {
  /** The value read for this request; a route that does not list the guard is a programming error. */
  of(req: Request): T;
}

export function valueGuard<T>(name: string, read: (ctx: SiteContext, req: Request) => T, params?: readonly string[]): ValueGuard<T> {
  const values = new WeakMap<Request, { value: T }>();
  return {
    name,
    ...(params ? { params } : {}),
    check: (ctx, req) => void values.set(req, { value: read(ctx, req) }),
    of: (req) => {
      const entry = values.get(req);
      if (!entry) throw new Error(`route ${req.method} ${req.path} reads ${name} but does not list it`);
      return entry.value;
    },
  };
}

/**
 * The body or query parameters of `schema`, read as a guard: the route index lists the schema's
 * names, so what a route declares is what it parses. `build` turns them into what the handler takes
 * (`guard.of(req)`); it sees the request for path parameters, never for more of its input.
 */
export function paramsGuard<S extends Schema>(name: string, schema: S): ValueGuard<Parsed<S>>;
export function paramsGuard<S extends Schema, T>(name: string, schema: S, build: (params: Parsed<S>, req: Request, ctx: SiteContext) => T): ValueGuard<T>;
export function paramsGuard<S extends Schema, T>(name: string, schema: S, build?: (params: Parsed<S>, req: Request, ctx: SiteContext) => T): ValueGuard<T | Parsed<S>> {
  return valueGuard(name, (ctx, req) => {
    const params = readParams(req.input, schema);
    return build ? build(params, req, ctx) : params;
  }, Object.keys(schema));
}

/** A numeric path parameter: 400 `<param> is invalid` otherwise, as Grape answers. */
export function pathId(param: string): ValueGuard<number> {
  return valueGuard(`pathId(:${param})`, (_ctx, req) => pathInt(req.params[param], param));
}

/** pathId, taking the keyword `self` too (`/personal_access_tokens/:id`: the token the request came with). */
export function pathIdOrSelf(param: string): ValueGuard<number | 'self'> {
  return valueGuard(`pathIdOrSelf(:${param})`, (_ctx, req) => (req.params[param] === 'self' ? 'self' : pathInt(req.params[param], param)));
}

/** The multipart file of `field`: 400 `<field> is missing`, or `is invalid` when the field came as text. */
export function uploadedFile(field: string): ValueGuard<UploadedFile> {
  return valueGuard(`uploadedFile(${field})`, (_ctx, req) => {
    const file = req.files.find((part) => part.field === field);
    if (!file) throw badRequest(req.input[field] === undefined ? `${field} is missing` : `${field} is invalid`);
    return file;
  }, [field]);
}

/** The multipart `avatar` of a create or update, when sent; 400 when it is not an image GitLab takes. */
export const avatarFile = valueGuard('avatarFile', (_ctx, req) => readAvatar(req), ['avatar']);

/** An update's `avatar`: a new image, null for `avatar=""` (GitLab removes the avatar), undefined when not sent. */
export const avatarChange = valueGuard('avatarChange', (_ctx, req) => (req.input.avatar === '' ? null : readAvatar(req)), ['avatar']);

function readAvatar(req: Request): UploadedFile | undefined {
  const avatar = req.files.find((file) => file.field === 'avatar');
  if (avatar) assertAvatar(avatar);
  return avatar;
}

/**
 * Every body or query parameter, for the one route that keeps keys it does not know
 * (PUT /application/settings): `read` validates what it knows and refuses with a 400. `declared`
 * names the known keys for the route index.
 */
export function openParamsGuard<T>(name: string, read: (input: Readonly<Record<string, unknown>>) => T, declared: readonly string[]): ValueGuard<T> {
  return valueGuard(name, (_ctx, req) => read(Object.fromEntries(Object.keys(req.input).map((key) => [key, req.input[key]]))), declared);
}
