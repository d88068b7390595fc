import type { Migration } from '../migrate.js';

/**
 * Users, their namespaces and everything that authenticates them. Times are ISO 8601 UTC text,
 * booleans 0/1. AUTOINCREMENT everywhere: as in GitLab, a deleted record's id is never reused.
 */
export const users: Migration = {
  version: 1,
  name: 'users',
  sql: `
CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  username TEXT NOT NULL,
  email TEXT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'blocked', 'ldap_blocked')),
  admin INTEGER NOT NULL DEFAULT 0,
  ghost INTEGER NOT NULL DEFAULT 0,
  password_hash TEXT,
  password_expires_at TEXT,
  bio TEXT NOT NULL DEFAULT '',
  location TEXT NOT NULL DEFAULT '',
  skype TEXT NOT NULL DEFAULT '',
  linkedin TEXT NOT NULL DEFAULT '',
  twitter TEXT NOT NULL DEFAULT '',
  website_url TEXT NOT NULL DEFAULT '',
  organization TEXT,
  projects_limit INTEGER NOT NULL DEFAULT 100000,
  can_create_group INTEGER NOT NULL DEFAULT 1,
  external INTEGER NOT NULL DEFAULT 0,
  two_factor_enabled INTEGER NOT NULL DEFAULT 0,
  theme_id INTEGER NOT NULL DEFAULT 1,
  color_scheme_id INTEGER NOT NULL DEFAULT 1,
  shared_runners_minutes_limit INTEGER,
  avatar_path TEXT,
  confirmed_at TEXT,
  last_sign_in_at TEXT,
  current_sign_in_at TEXT,
  last_activity_on TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX users_username ON users (username COLLATE NOCASE);
CREATE UNIQUE INDEX users_email ON users (email COLLATE NOCASE);
CREATE INDEX users_state ON users (state, id);
CREATE INDEX users_created_at ON users (created_at);
CREATE INDEX users_last_activity_on ON users (last_activity_on);

-- A user's personal namespace (kind 'user', path = username); groups are namespaces too.
CREATE TABLE namespaces (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('user', 'group')),
  owner_id INTEGER REFERENCES users (id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  full_path TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX namespaces_full_path ON namespaces (full_path COLLATE NOCASE);
CREATE UNIQUE INDEX namespaces_user_owner ON namespaces (owner_id) WHERE kind = 'user';
CREATE INDEX namespaces_parent ON namespaces (parent_id);

CREATE TABLE identities (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  provider TEXT NOT NULL,
  extern_uid TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX identities_provider_uid ON identities (provider, extern_uid COLLATE NOCASE);
CREATE UNIQUE INDEX identities_user_provider ON identities (user_id, provider);

CREATE TABLE user_custom_attributes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX user_custom_attributes_user_key ON user_custom_attributes (user_id, key);
CREATE INDEX user_custom_attributes_key_value ON user_custom_attributes (key, value);

CREATE TABLE ssh_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX ssh_keys_fingerprint ON ssh_keys (fingerprint);
CREATE INDEX ssh_keys_user ON ssh_keys (user_id, id);

CREATE TABLE gpg_keys (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  primary_keyid TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX gpg_keys_fingerprint ON gpg_keys (fingerprint);
CREATE INDEX gpg_keys_user ON gpg_keys (user_id, id);

CREATE TABLE emails (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email TEXT NOT NULL,
  confirmed_at TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX emails_email ON emails (email COLLATE NOCASE);
CREATE INDEX emails_user ON emails (user_id, id);

-- Personal access tokens and impersonation tokens; only the SHA-256 digest of a secret is kept.
CREATE TABLE personal_access_tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  token_digest TEXT NOT NULL,
  scopes TEXT NOT NULL,
  impersonation INTEGER NOT NULL DEFAULT 0,
  revoked INTEGER NOT NULL DEFAULT 0,
  expires_at TEXT,
  last_used_at TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX personal_access_tokens_digest ON personal_access_tokens (token_digest);
CREATE INDEX personal_access_tokens_user ON personal_access_tokens (user_id, impersonation, id);

CREATE TABLE oauth_access_tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_digest TEXT NOT NULL,
  refresh_digest TEXT,
  scopes TEXT NOT NULL,
  revoked INTEGER NOT NULL DEFAULT 0,
  expires_at TEXT,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX oauth_access_tokens_digest ON oauth_access_tokens (token_digest);
CREATE UNIQUE INDEX oauth_access_tokens_refresh ON oauth_access_tokens (refresh_digest);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_digest TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX sessions_digest ON sessions (token_digest);
CREATE INDEX sessions_user ON sessions (user_id);
`,
};
