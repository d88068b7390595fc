/**
 * GitLab's License entity (ee) for the edition geoforge runs: a premium license without a user limit
 * or an expiry (GITLAB-NOTES 3.1: python-gitlab's premium tests read `plan`), starting when the site
 * did, with today's active users as its user counts.
 */
export function editionLicenseView(figures: { active_users: number; since: string | null }, externalUrl: string) {
  const since = figures.since ?? new Date(0).toISOString();
  return {
    id: 1,
    plan: 'premium',
    created_at: since,
    starts_at: since.slice(0, 10),
    expires_at: null,
    historical_max: figures.active_users,
    maximum_user_count: figures.active_users,
    expired: false,
    overage: 0,
    user_limit: 0,
    active_users: figures.active_users,
    licensee: { Name: 'geoforge', Email: null, Company: externalUrl },
    add_ons: {},
  };
}
