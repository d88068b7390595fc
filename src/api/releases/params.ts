import { RELEASE_LINK_TYPES } from '../../db/tables/release-links.js';
import { badRequest } from '../../errors.js';
import type { LinkInput } from '../../services/releases/link-values.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { datetime, list, oneOf, readParams, required, requireAtLeastOne, str, type Reader } from '../params.js';

const linkFields = {
  name: str(),
  url: str(),
  direct_asset_path: str(),
  filepath: str(),
  link_type: oneOf(RELEASE_LINK_TYPES),
};

/** `direct_asset_path`, or its deprecated name `filepath`. */
const directAssetPath = (params: { direct_asset_path?: string; filepath?: string }) => params.direct_asset_path ?? params.filepath;

/** `assets[links]`: a list of links, each with a required name and url (releases.rb's `requires :name, :url`). */
function assetLinks(): Reader<LinkInput[] | undefined> {
  return (raw, name) => {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest(`${name} is invalid`);
    const links = list((item, field): LinkInput => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest(`${field} is invalid`);
      const params = readParams(item as Record<string, unknown>, { ...linkFields, name: required(str()), url: required(str()) });
      return { name: params.name, url: params.url, filepath: directAssetPath(params), linkType: params.link_type };
    })((raw as Record<string, unknown>).links, `${name}[links]`);
    return links ?? [];
  };
}

export const releaseListParams = paramsGuard('releaseListParams', { order_by: oneOf(['released_at', 'created_at'] as const), sort: oneOf(['asc', 'desc'] as const) }, (params) => ({
  by: params.order_by ?? 'released_at',
  sort: params.sort ?? 'desc',
}));

export const releaseCreateParams = paramsGuard(
  'releaseCreateParams',
  {
    tag_name: required(str()),
    tag_message: str(),
    ref: str(),
    name: str(),
    description: str(),
    released_at: datetime(),
    milestones: list(str()),
    assets: assetLinks(),
  },
  (params) => ({
    tag: params.tag_name,
    ref: params.ref || undefined,
    tagMessage: params.tag_message,
    name: params.name,
    description: params.description,
    releasedAt: params.released_at,
    milestones: params.milestones,
    links: params.assets,
  }),
);

export const releaseUpdateParams = paramsGuard('releaseUpdateParams', { name: str(), description: str(), released_at: datetime(), milestones: list(str()) }, (params) => ({
  name: params.name,
  description: params.description,
  releasedAt: params.released_at,
  milestones: params.milestones,
}));

export const linkCreateParams = paramsGuard('linkCreateParams', { ...linkFields, name: required(str()), url: required(str()) }, (params) => ({
  name: params.name,
  url: params.url,
  filepath: directAssetPath(params),
  linkType: params.link_type,
}));

/** release/links.rb update: `at_least_one_of :name, :url`. */
export const linkUpdateParams = paramsGuard('linkUpdateParams', linkFields, (params) => {
  requireAtLeastOne(params, ['name', 'url']);
  const filepath = directAssetPath(params);
  return { name: params.name, url: params.url, filepath: filepath === '' ? null : filepath, linkType: params.link_type };
});
