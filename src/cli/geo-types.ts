import { ConfigError } from '../config.js';
import { BLOB_TYPES, type BlobType } from '../geo/blobs.js';

/** The names an operator may type for a type: the registry's, GitLab's plurals, and `upload(s)`. */
const TYPE_NAMES: Readonly<Record<string, BlobType>> = {
  ...Object.fromEntries(BLOB_TYPES.map((type) => [type, type])),
  repositories: 'repository',
  wikis: 'wiki',
  lfs_objects: 'lfs_object',
  lfs: 'lfs_object',
  job_artifacts: 'job_artifact',
  artifacts: 'job_artifact',
  attachments: 'attachment',
  upload: 'attachment',
  uploads: 'attachment',
};

export const TYPE_CHOICES = Object.keys(TYPE_NAMES);

export function blobType(name: string): BlobType {
  const type = TYPE_NAMES[name.toLowerCase().replace(/-/g, '_')];
  if (!type) throw new ConfigError(`unknown type "${name}": expected one of ${BLOB_TYPES.join(', ')} (or uploads, lfs_objects, job_artifacts...)`);
  return type;
}
