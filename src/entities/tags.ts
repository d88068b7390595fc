/** Tags and their release notes (GitLab ENT Tag, Release; 10.x shapes): a lightweight tag has a null message. */
import type { ReleaseRow } from '../db/tables/releases.js';
import type { CommitRecord } from '../git/commit-log.js';
import type { TagRecord } from '../git/tags.js';
import { commitEntity } from './repository.js';

export interface TagView {
  readonly tag: TagRecord;
  readonly commit: CommitRecord | null;
  readonly release: ReleaseRow | null;
  readonly protected: boolean;
}

export function releaseEntity(release: ReleaseRow) {
  return { tag_name: release.tag, description: release.description };
}

export function tagEntity(view: TagView) {
  return {
    name: view.tag.name,
    message: view.tag.message,
    target: view.tag.target,
    commit: view.commit ? commitEntity(view.commit) : null,
    release: view.release ? releaseEntity(view.release) : null,
    protected: view.protected,
  };
}
