/**
 * GitLab's ApplicationSetting entity, for the settings geoforge has: the ones it acts on, then the
 * keys it keeps without acting on them (`other`), as they were given. `id` is always 1 (one row).
 */
export function applicationSettingsView(settings: { readonly other: Readonly<Record<string, unknown>> }) {
  const { other, ...known } = settings;
  return { id: 1, ...other, ...known };
}
