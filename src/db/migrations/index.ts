import type { Migration } from '../migrate.js';
import { users } from './0001_users.js';
import { geo } from './0002_geo.js';
import { groupsProjects } from './0003_groups_projects.js';
import { hooks } from './0004_hooks.js';
import { ldap } from './0005_ldap.js';
import { uploads } from './0006_uploads.js';
import { lfs } from './0007_lfs.js';
import { ci } from './0008_ci.js';
import { geoBlobs } from './0009_geo_blobs.js';
import { issuables } from './0010_issuables.js';
import { boards } from './0011_boards.js';
import { epics } from './0012_epics.js';
import { mergeRequests } from './0013_merge_requests.js';
import { protectedRefs } from './0014_protected_refs.js';
import { deployKeys } from './0015_deploy_keys.js';
import { settings } from './0016_settings.js';
import { geoFailover } from './0017_geo_failover.js';
import { mergeRequestMerges } from './0018_merge_request_merges.js';
import { geoUsedNonces } from './0019_geo_used_nonces.js';
import { mergeRequestReviewers } from './0020_merge_request_reviewers.js';
import { approvalRulesAccessTokens } from './0021_approval_rules_access_tokens.js';
import { issueLinks } from './0022_issue_links.js';
import { groupSharesBans } from './0023_group_shares_bans.js';
import { releasesSystemHooks } from './0024_releases_system_hooks.js';
import { snippets } from './0025_snippets.js';
import { siteAdministration } from './0026_site_administration.js';
import { topicsSearch } from './0027_topics_search.js';
import { groupWikis } from './0028_group_wikis.js';
import { remoteMirrors } from './0029_remote_mirrors.js';

/** Every migration in order. Forward-only: a released migration is never edited. */
export const migrations: readonly Migration[] = [
  users, geo, groupsProjects, hooks, ldap, uploads, lfs, ci, geoBlobs, issuables, boards, epics,
  mergeRequests, protectedRefs, deployKeys, settings, geoFailover, mergeRequestMerges,
  geoUsedNonces, mergeRequestReviewers, approvalRulesAccessTokens, issueLinks, groupSharesBans,
  releasesSystemHooks, snippets, siteAdministration, topicsSearch, groupWikis, remoteMirrors,
];
