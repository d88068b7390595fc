import type { Migration } from '../migrate.js';

/**
 * CI as far as external tools drive it (DESIGN "Beyond the SPEC"): a commit status is a job of the
 * commit's pipeline, and a job may carry an artifacts archive. Rows replicate like every table;
 * archive files live at DATA_DIR/artifacts/<project_id>/<job_id>/<filename> and travel as blobs
 * (sha256 and size let a secondary verify what it fetched).
 */
export const ci: Migration = {
  version: 8,
  name: 'ci',
  sql: `
CREATE TABLE ci_pipelines (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  sha TEXT NOT NULL,
  ref TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual')),
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
-- A status finds its commit's pipeline by sha (and ref); lists filter by project.
CREATE INDEX ci_pipelines_project_sha ON ci_pipelines (project_id, sha);
CREATE INDEX ci_pipelines_user ON ci_pipelines (user_id);

CREATE TABLE ci_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  pipeline_id INTEGER NOT NULL REFERENCES ci_pipelines (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  stage TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped')),
  ref TEXT NOT NULL,
  sha TEXT NOT NULL,
  target_url TEXT,
  description TEXT,
  allow_failure INTEGER NOT NULL DEFAULT 0 CHECK (allow_failure IN (0, 1)),
  coverage REAL,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  started_at TEXT,
  finished_at TEXT
);
-- An external status is updated by name within its pipeline.
CREATE UNIQUE INDEX ci_jobs_pipeline_name ON ci_jobs (pipeline_id, name);
CREATE INDEX ci_jobs_project_status ON ci_jobs (project_id, status);
CREATE INDEX ci_jobs_project_sha ON ci_jobs (project_id, sha);
CREATE INDEX ci_jobs_user ON ci_jobs (user_id);

CREATE TABLE ci_job_artifacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  job_id INTEGER NOT NULL REFERENCES ci_jobs (id) ON DELETE CASCADE,
  file_type TEXT NOT NULL CHECK (file_type IN ('archive')),
  filename TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  created_at TEXT NOT NULL
);
-- One archive per job: a new upload replaces the earlier one.
CREATE UNIQUE INDEX ci_job_artifacts_job_type ON ci_job_artifacts (job_id, file_type);
CREATE INDEX ci_job_artifacts_project ON ci_job_artifacts (project_id);
`,
};
