import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface ProjectRow {
  id: number;
  namespace_id: number;
  name: string;
  path: string;
  description: string | null;
  visibility_level: number;
  default_branch: string;
  creator_id: number | null;
  issues_enabled: number;
  merge_requests_enabled: number;
  jobs_enabled: number;
  wiki_enabled: number;
  snippets_enabled: number;
  container_registry_enabled: number;
  shared_runners_enabled: number;
  lfs_enabled: number;
  request_access_enabled: number;
  public_jobs: number;
  only_allow_merge_if_pipeline_succeeds: number;
  only_allow_merge_if_all_discussions_are_resolved: number;
  resolve_outdated_diff_discussions: number;
  printing_merge_request_link_enabled: number;
  ci_config_path: string | null;
  repository_storage: string;
  approvals_before_merge: number;
  tag_list: string;
  archived: number;
  star_count: number;
  forked_from_project_id: number | null;
  import_url: string | null;
  import_status: 'none' | 'scheduled' | 'started' | 'finished' | 'failed';
  import_error: string | null;
  runners_token: string;
  avatar_path: string | null;
  last_activity_at: string;
  created_at: string;
  updated_at: string;
}

export function findProjectById(db: Db, id: number): ProjectRow | undefined {
  return prepare(db, 'SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined;
}

/** A project by `namespace/full/path/project`, case-insensitive as GitLab's routes are. */
export function findProjectByFullPath(db: Db, fullPath: string): ProjectRow | undefined {
  const cut = fullPath.lastIndexOf('/');
  if (cut <= 0) return undefined;
  return prepare(
    db,
    'SELECT p.* FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.full_path = ? COLLATE NOCASE AND p.path = ? COLLATE NOCASE',
  ).get(fullPath.slice(0, cut), fullPath.slice(cut + 1)) as ProjectRow | undefined;
}
