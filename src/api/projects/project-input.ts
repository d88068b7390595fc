import { VISIBILITY_NAMES } from '../../db/levels.js';
import { PROJECT_FLAGS, type ProjectInput } from '../../services/projects/create.js';
import { bool, given, int, list, oneOf, str, type Parsed, type Reader } from '../params.js';

const flags = Object.fromEntries(PROJECT_FLAGS.map((flag) => [flag, bool()])) as Record<(typeof PROJECT_FLAGS)[number], Reader<boolean | undefined>>;

/** The create and update attributes (SPEC: create parameters). */
export const PROJECT_PARAMS = {
  ...flags,
  name: str(),
  path: str(),
  description: str(),
  default_branch: str(),
  visibility: oneOf(VISIBILITY_NAMES),
  topics: list(str()),
  tag_list: list(str()),
  import_url: str(),
  ci_config_path: str(),
  repository_storage: str(),
  approvals_before_merge: int(),
};

export function projectInputOf(params: Parsed<typeof PROJECT_PARAMS>): ProjectInput {
  return given(params) as ProjectInput;
}
