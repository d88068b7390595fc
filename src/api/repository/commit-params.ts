import type { CommitRequest } from '../../services/repository/commit-writer.js';
import { required, str, type Parsed } from '../params.js';

/** What every commit made through the API names (SPEC: Repository files, Commits): the branch, the message, where to start and the author. */
export const COMMIT_PARAMS = { branch: required(str()), commit_message: required(str()), start_branch: str(), author_email: str(), author_name: str() };

export function commitRequestOf(params: Parsed<typeof COMMIT_PARAMS>): Omit<CommitRequest, 'actions'> {
  return {
    branch: params.branch,
    startBranch: params.start_branch || undefined,
    message: params.commit_message,
    authorEmail: params.author_email,
    authorName: params.author_name,
  };
}
