/** A license as the template list holds it (services/templates/license-templates.ts). */
interface LicenseSource {
  readonly key: string;
  readonly id: string;
  readonly name: string;
  readonly url: string;
  readonly popular: boolean;
}

/**
 * GitLab's License template entity (RepoLicense). SPDX has no nickname, description or the
 * conditions, permissions and limitations lists that choosealicense.com has: null and empty.
 */
export function licenseTemplateView(license: LicenseSource, content: string) {
  return {
    key: license.key,
    name: license.name,
    nickname: null,
    popular: license.popular,
    html_url: `https://spdx.org/licenses/${license.id}.html`,
    source_url: license.url,
    description: null,
    conditions: [],
    permissions: [],
    limitations: [],
    content,
  };
}
