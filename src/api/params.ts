import { badRequest } from '../errors.js';

/** Parameters of one request: query string, urlencoded, JSON and multipart fields merged (GITLAB-NOTES W3). */
export type Input = Record<string, unknown>;

/** Reads one raw value (undefined when absent) into a typed value, throwing a 400 that names the parameter. */
export type Reader<T> = (raw: unknown, name: string) => T;

const invalidParam = (name: string) => badRequest(`${name} is invalid`);
const isBlank = (raw: unknown) => raw === undefined || raw === null || raw === '';

export function str(options: { max?: number } = {}): Reader<string | undefined> {
  return (raw, name) => {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw === 'number' || typeof raw === 'boolean') raw = String(raw);
    if (typeof raw !== 'string') throw invalidParam(name);
    if (options.max !== undefined && raw.length > options.max) throw badRequest(`${name} is too long (maximum is ${options.max} characters)`);
    return raw;
  };
}

export function int(options: { min?: number; max?: number } = {}): Reader<number | undefined> {
  return (raw, name) => {
    if (isBlank(raw)) return undefined;
    const text = typeof raw === 'number' ? String(raw) : raw;
    if (typeof text !== 'string' || !/^-?\d{1,15}$/.test(text.trim())) throw invalidParam(name);
    const value = Number(text);
    if ((options.min !== undefined && value < options.min) || (options.max !== undefined && value > options.max)) {
      throw badRequest(`${name} does not have a valid value`);
    }
    return value;
  };
}

/** An integer out of a fixed set (Grape's `values:`), such as an access level; 400 `<name> does not have a valid value` else. */
export function intOneOf(values: readonly number[]): Reader<number | undefined> {
  const read = int();
  return (raw, name) => {
    const value = read(raw, name);
    if (value !== undefined && !values.includes(value)) throw badRequest(`${name} does not have a valid value`);
    return value;
  };
}

const truthy = new Set(['true', '1', 'yes', 't', 'y', 'on']);
const falsy = new Set(['false', '0', 'no', 'f', 'n', 'off']);

/** true/false in any case, 1/0, yes/no, and JSON booleans (python-gitlab sends `True`; multipart sends "1"). */
export function bool(): Reader<boolean | undefined> {
  return (raw, name) => {
    if (isBlank(raw)) return undefined;
    if (typeof raw === 'boolean') return raw;
    const text = String(raw).toLowerCase();
    if (truthy.has(text)) return true;
    if (falsy.has(text)) return false;
    throw invalidParam(name);
  };
}

export function oneOf<T extends string>(values: readonly T[]): Reader<T | undefined> {
  return (raw, name) => {
    if (isBlank(raw)) return undefined;
    if (typeof raw !== 'string' || !(values as readonly string[]).includes(raw)) throw badRequest(`${name} does not have a valid value`);
    return raw as T;
  };
}

/** The time part an ISO 8601 date may carry: `T10:00`, ` 10:00:00.5`, with an optional zone. */
const TIME_OF_DAY = /^[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * A calendar date, returned as `YYYY-MM-DD`. An ISO 8601 time is accepted and keeps the date as
 * written, whatever its zone (`2026-01-02T23:00:00-05:00` is 2026-01-02), as Grape's Date coercion
 * (Ruby's Date.parse) does; anything that is no date is 400 `<name> is invalid`.
 */
export function date(): Reader<string | undefined> {
  return (raw, name) => {
    if (isBlank(raw)) return undefined;
    if (typeof raw !== 'string') throw invalidParam(name);
    const text = raw.trim();
    const day = text.slice(0, 10);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || (text.length > 10 && !TIME_OF_DAY.test(text.slice(10)))) throw invalidParam(name);
    const parsed = new Date(`${day}T00:00:00Z`);
    if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) throw invalidParam(name);
    return day;
  };
}

/** An ISO 8601 date or time; returned as a UTC ISO string so it compares with stored times. */
export function datetime(): Reader<string | undefined> {
  return (raw, name) => {
    if (isBlank(raw)) return undefined;
    if (typeof raw !== 'string' || !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw.trim())) throw invalidParam(name);
    const parsed = new Date(raw.trim());
    if (Number.isNaN(parsed.getTime())) throw invalidParam(name);
    return parsed.toISOString();
  };
}

/** Arrays as JSON arrays, `key[]=` repeats or comma-separated text (GITLAB-NOTES W5). */
export function list<T>(item: Reader<T | undefined>): Reader<T[] | undefined> {
  return (raw, name) => {
    if (raw === undefined || raw === null) return undefined;
    let values: unknown[];
    if (Array.isArray(raw)) values = raw;
    else if (typeof raw === 'string') values = raw === '' ? [] : raw.split(',').map((part) => part.trim());
    else if (typeof raw === 'number') values = [raw];
    else if (typeof raw === 'object') values = Object.values(raw as object);
    else throw invalidParam(name);
    return values.map((value) => {
      const parsed = item(value, name);
      if (parsed === undefined) throw invalidParam(name);
      return parsed;
    });
  };
}

/** A `key[sub]=value` hash of strings (GITLAB-NOTES W6). */
export function hash(): Reader<Record<string, string> | undefined> {
  return (raw, name) => {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidParam(name);
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw as object)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw invalidParam(name);
      out[key] = String(value);
    }
    return out;
  };
}

/** An empty value is null (GitLab's allow_blank, which clears the attribute); anything else is the reader's. */
export function clearable<T>(reader: Reader<T | undefined>): Reader<T | null | undefined> {
  return (raw, name) => (raw === '' ? null : reader(raw, name));
}

export function required<T>(reader: Reader<T | undefined>): Reader<T> {
  return (raw, name) => {
    const value = reader(raw, name);
    if (value === undefined || value === '') throw badRequest(`${name} is missing`);
    return value;
  };
}

/** Parameters by name, each with its reader: what a route declares (the route index lists the names). */
export type Schema = Record<string, Reader<unknown>>;

export type Parsed<S> = { [K in keyof S]: S[K] extends Reader<infer T> ? T : never };

/** The values given: every parameter read as undefined (absent) left out. */
export function given<T extends object>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Reads the parameters a route declares; anything undeclared is ignored (GITLAB-NOTES W8). */
export function readParams<S extends Schema>(input: Input, schema: S): Parsed<S> {
  // Every raw value first, then the readers: a 400 on one parameter still reads them all (what
  // test/integration/route-params.test.ts records of a request).
  const raws = Object.keys(schema).map((name) => input[name]);
  const out: Record<string, unknown> = {};
  Object.entries(schema).forEach(([name, reader], index) => (out[name] = reader(raws[index], name)));
  return out as Parsed<S>;
}

/**
 * A path id that must be an integer: 400 `<name> is invalid` otherwise, as Grape answers. Routes of
 * the route table read their ids through the pathId guard (middleware/value-guards.ts), which calls
 * this; only routers outside the table (avatars, the site-to-site Geo API) call it themselves.
 */
export function pathInt(raw: unknown, name: string): number {
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) throw invalidParam(name);
  return Number(raw);
}

/** Grape's `at_least_one_of`: 400 naming every candidate when none was given. */
export function requireAtLeastOne(values: Record<string, unknown>, names: readonly string[]): void {
  if (names.some((name) => values[name] !== undefined)) return;
  throw badRequest(`${names.join(', ')} are missing, at least one parameter must be provided`);
}

/**
 * A group, project or namespace reference in a path: digits are an id, anything else a full path
 * (express has already decoded `%2F`, GITLAB-NOTES W9).
 */
export function idOrPath(raw: string): { id: number } | { path: string } {
  return /^\d{1,15}$/.test(raw) ? { id: Number(raw) } : { path: raw.replace(/^\/+|\/+$/g, '') };
}
