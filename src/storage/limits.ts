/** The largest JSON or form body a request may send. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;
/** The largest file a multipart request may send (a project upload, a job artifact). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
/** The largest avatar, as GitLab's uploader allows. */
export const MAX_AVATAR_BYTES = 200 * 1024;
/** The largest Git LFS batch request read (git-lfs sends at most 100 objects a batch). */
export const MAX_LFS_BATCH_BYTES = 1024 * 1024;
