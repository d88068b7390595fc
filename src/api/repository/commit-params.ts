import type { CommitRequest } from '../../services/repository/commit-writer.js';
import { readParams, required, str, type Input } from '../params.js';

/** What every commit made through the API names (SPEC: Repository files, Commits): the branch, the message, where to start and the author. */
export function readCommitRequest(input: Input): Omit<CommitRequest, 'actions'> {
  const params = readParams(input, { branch: required(str()), commit_message: required(str()), start_branch: str(), author_email: str(), author_name: str() });
  return {
    branch: params.branch,
    startBranch: params.start_branch || undefined,
    message: params.commit_message,
    authorEmail: params.author_email,
    authorName: params.author_name,
  };
}
