/** Object names as git prints them: pure checks, no git call. */

/** The all-zero object name (GitLab's Gitlab::Git::BLANK_SHA): a ref that does not exist, before its creation or after its deletion. */
export const BLANK_SHA = '0'.repeat(40);

/** Whether a sha is all zeros, of any length: SHA-1 repositories send 40, SHA-256 ones 64. */
export const isBlankSha = (sha: string): boolean => /^0+$/.test(sha);

/** A full SHA-1 object name, as git prints it. */
export const isFullSha = (sha: string): boolean => /^[0-9a-f]{40}$/.test(sha);
