import type { FieldErrors } from '../../errors.js';

/** Top-level paths a username may not take: they are routes of the site itself. */
const RESERVED_NAMES = new Set([
  '-', '.well-known', 'admin', 'api', 'assets', 'dashboard', 'explore', 'favicon.ico', 'groups', 'help', 'import', 'oauth',
  'profile', 'projects', 'public', 'robots.txt', 'search', 'snippets', 'uploads', 'users', 'ghost',
]);

const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface UserAttributes {
  username?: string;
  email?: string;
  name?: string;
  password?: string;
  bio?: string;
  location?: string;
  skype?: string;
  linkedin?: string;
  twitter?: string;
  website_url?: string;
  organization?: string;
  projects_limit?: number;
}

/**
 * What is wrong with a namespace path (a username or a group path), GitLab's texts; reserved
 * names are the site's own top-level routes, so they bind top-level paths only.
 */
export function namespacePathErrors(path: string, topLevel: boolean): string[] {
  const errors: string[] = [];
  if (path.length > 255) errors.push('is too long (maximum is 255 characters)');
  if (!USERNAME.test(path) || /\.(git|atom)$/i.test(path)) {
    errors.push("can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.");
  }
  if (topLevel && RESERVED_NAMES.has(path.toLowerCase())) errors.push(`${path} is a reserved name`);
  return errors;
}

export function isValidEmail(email: string): boolean {
  return EMAIL.test(email) && email.length <= 255;
}

/** GitLab's model validations of a user, as field errors (empty when valid). */
export function validateUserAttributes(attrs: UserAttributes): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, text: string) => (errors[field] ??= []).push(text);
  if (attrs.username !== undefined) for (const text of namespacePathErrors(attrs.username, true)) add('username', text);
  if (attrs.email !== undefined && !isValidEmail(attrs.email)) add('email', 'is invalid');
  if (attrs.name !== undefined) {
    if (!attrs.name.trim()) add('name', "can't be blank");
    if (attrs.name.length > 255) add('name', 'is too long (maximum is 255 characters)');
  }
  if (attrs.password !== undefined) {
    if (attrs.password.length < 8) add('password', 'is too short (minimum is 8 characters)');
    if (attrs.password.length > 128) add('password', 'is too long (maximum is 128 characters)');
  }
  for (const field of ['bio', 'location', 'skype', 'linkedin', 'twitter', 'website_url', 'organization'] as const) {
    const value = attrs[field];
    if (value !== undefined && value.length > 255) add(field, 'is too long (maximum is 255 characters)');
  }
  if (attrs.projects_limit !== undefined && attrs.projects_limit < 0) add('projects_limit', 'must be greater than or equal to 0');
  return errors;
}
