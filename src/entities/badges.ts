import type { BadgeRow } from '../db/tables/badges.js';

/**
 * What a badge's placeholders stand for: one project's values (GitLab's Badge::PLACEHOLDERS), or
 * null when the badges are shown without a project (a group with no project the caller may see),
 * where the urls stay as written.
 */
export interface BadgePlaceholders {
  readonly project_path: string;
  readonly project_id: number;
  readonly default_branch: string | null;
  readonly commit_sha: string | null;
}

const PLACEHOLDER = /%\{(project_path|project_id|default_branch|commit_sha)\}/g;

/** A url with its placeholders replaced; an absent value (no commit yet) becomes empty, as GitLab's gsub does. */
export function renderBadgeUrl(url: string, values: BadgePlaceholders | null): string {
  if (!values) return url;
  return url.replace(PLACEHOLDER, (_match, name: keyof BadgePlaceholders) => String(values[name] ?? ''));
}

/** BasicBadgeDetails: what `GET .../badges/render` answers for a badge not saved. */
export function badgePreview(badge: Pick<BadgeRow, 'name' | 'link_url' | 'image_url'>, values: BadgePlaceholders | null) {
  return {
    name: badge.name,
    link_url: badge.link_url,
    image_url: badge.image_url,
    rendered_link_url: renderBadgeUrl(badge.link_url, values),
    rendered_image_url: renderBadgeUrl(badge.image_url, values),
  };
}

/** Badge: `kind` is `project` for a project's own badge and `group` for a group's, wherever it is listed. */
export function badge(row: BadgeRow, values: BadgePlaceholders | null) {
  return { id: row.id, ...badgePreview(row, values), kind: row.project_id === null ? 'group' : 'project' };
}
