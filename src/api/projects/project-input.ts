import type { Request } from 'express';
import { assertAvatar } from '../../services/avatars.js';
import { VISIBILITY_NAMES } from '../../db/levels.js';
import { PROJECT_FLAGS, type ProjectInput } from '../../services/projects/create.js';
import { bool, int, list, oneOf, str, type Parsed, type Reader } from '../params.js';

const flags = Object.fromEntries(PROJECT_FLAGS.map((flag) => [flag, bool()])) as Record<(typeof PROJECT_FLAGS)[number], Reader<boolean | undefined>>;

/** The create and update attributes (SPEC: create parameters). */
export const PROJECT_PARAMS = {
  ...flags,
  name: str(),
  path: str(),
  description: str(),
  default_branch: str(),
  visibility: oneOf(VISIBILITY_NAMES),
  tag_list: list(str()),
  import_url: str(),
  ci_config_path: str(),
  repository_storage: str(),
  approvals_before_merge: int(),
};

export function projectInputOf(params: Parsed<typeof PROJECT_PARAMS>): ProjectInput {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as ProjectInput;
}

/** The multipart `avatar` of a create or update, when sent; 400 when it is not an image GitLab takes. */
export function avatarOf(req: Request) {
  const avatar = req.files.find((file) => file.field === 'avatar');
  if (avatar) assertAvatar(avatar);
  return avatar;
}
