/** Releases and their asset links as GitLab 17 shows them (API::Entities::Release, Releases::Link). */
import type { MilestoneRow } from '../db/tables/milestones.js';
import type { ReleaseLinkRow } from '../db/tables/release-links.js';
import type { ReleaseRow } from '../db/tables/releases.js';
import type { UserRow } from '../db/tables/users.js';
import type { CommitRecord } from '../git/commit-log.js';
import { isoTime } from './column-values.js';
import { milestoneView } from './milestones.js';
import { commitEntity } from './repository.js';
import { userBasic, type EntityContext } from './users.js';

/** The archive formats GitLab lists as a release's sources. */
export const SOURCE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

/** Where a project's pages live: `${externalUrl}/${fullPath}`, and its path for the relative `*_path` fields. */
export interface ReleaseProject {
  readonly id: number;
  readonly path: string;
  readonly fullPath: string;
  readonly webUrl: string;
}

/** A milestone of a release, with its owner's path (web_url) and its issue counts. */
export interface ReleaseMilestone {
  readonly row: MilestoneRow;
  readonly ownerPath: string;
  readonly stats: { readonly total: number; readonly closed: number };
}

/** A release with everything its entity shows, preloaded by services/releases. */
export interface ReleaseView {
  readonly release: ReleaseRow;
  readonly project: ReleaseProject;
  readonly author: UserRow | null;
  readonly commit: CommitRecord | null;
  readonly links: readonly ReleaseLinkRow[];
  readonly milestones: readonly ReleaseMilestone[];
  /** The caller may download the code (GitLab's can_download_code?): tag, commit, sources and paths show. */
  readonly downloadCode: boolean;
  /** The caller may edit the release: `_links.edit_url` shows. */
  readonly canEdit: boolean;
  /** The time the view was made, for `upcoming_release`. */
  readonly now: string;
}

const releaseUrl = (project: ReleaseProject, tag: string) => `${project.webUrl}/-/releases/${encodeURIComponent(tag)}`;

/** The sources' archive URLs (GitLab's Releases::Source). */
export function releaseSources(project: ReleaseProject, tag: string) {
  return SOURCE_FORMATS.map((format) => ({ format, url: `${project.webUrl}/-/archive/${tag}/${project.path}-${tag}.${format}` }));
}

/** Releases::Link: `direct_asset_url` is the permanent link of a link with a filepath, else its url. */
export function releaseLinkEntity(link: ReleaseLinkRow, project: ReleaseProject, tag: string) {
  return {
    id: link.id,
    name: link.name,
    url: link.url,
    direct_asset_url: link.filepath ? `${releaseUrl(project, tag)}/downloads${link.filepath}` : link.url,
    external: isExternalLink(link, project),
    link_type: link.link_type,
  };
}

/** GitLab's Link#internal?: a URL inside the project. */
export const isExternalLink = (link: ReleaseLinkRow, project: ReleaseProject): boolean => !link.url.startsWith(`${project.webUrl}/`);

export function releaseEntity(view: ReleaseView, ctx: EntityContext) {
  const { release, project, downloadCode } = view;
  const code = <T>(value: T) => (downloadCode ? value : undefined);
  const self = releaseUrl(project, release.tag);
  return {
    name: release.name,
    tag_name: code(release.tag),
    description: release.description === '' ? null : release.description,
    created_at: isoTime(release.created_at),
    released_at: isoTime(release.released_at),
    ...(view.author ? { author: userBasic(view.author, ctx) } : {}),
    commit: code(view.commit ? commitEntity(view.commit) : null),
    upcoming_release: release.released_at > view.now,
    ...(view.milestones.length
      ? { milestones: view.milestones.map((milestone) => ({ ...milestoneView(milestone.row, milestone.ownerPath, ctx), issue_stats: milestone.stats })) }
      : {}),
    ...(downloadCode && release.sha ? { commit_path: `/${project.fullPath}/-/commit/${release.sha}`, tag_path: `/${project.fullPath}/-/tags/${encodeURIComponent(release.tag)}` } : {}),
    assets: {
      count: view.links.length + (downloadCode ? SOURCE_FORMATS.length : 0),
      sources: code(releaseSources(project, release.tag)),
      links: view.links.map((link) => releaseLinkEntity(link, project, release.tag)),
    },
    evidences: code([]),
    _links: {
      ...(downloadCode ? { self } : {}),
      ...(view.canEdit ? { edit_url: `${self}/edit` } : {}),
    },
  };
}
