import { AppError, apiError } from '../../errors.js';
import type { FileChange, TreeFile } from '../../git/wiki-pages.js';
import { isValidFilePath } from '../repository/commit-writer.js';

/** GitLab's SnippetInputAction actions. */
export const SNIPPET_FILE_ACTIONS = ['create', 'update', 'delete', 'move'] as const;
export type SnippetFileActionName = (typeof SNIPPET_FILE_ACTIONS)[number];

export interface SnippetFileAction {
  readonly action: SnippetFileActionName;
  readonly file_path?: string;
  readonly previous_path?: string;
  readonly content?: string;
}

/** GitLab's answer to actions that do not validate (SnippetInputActionCollection#valid?). */
const invalidActions = () => new AppError('unprocessable', 'Snippet actions have invalid data');

/**
 * Whether one action carries what its kind needs (GitLab's SnippetInputAction validations):
 * create a content (and a path, or one is generated), update a path and a content, delete a path,
 * move both paths; every path given must be a valid file path.
 */
function actionIsValid(action: SnippetFileAction): boolean {
  const paths = [action.file_path, action.previous_path].filter((value) => value !== undefined && value !== '');
  if (paths.some((value) => !isValidFilePath(value!))) return false;
  switch (action.action) {
    case 'create':
      return action.content !== undefined && action.content !== '';
    case 'update':
      return !!action.file_path && action.content !== undefined;
    case 'delete':
      return !!action.file_path;
    case 'move':
      return !!action.file_path && !!action.previous_path;
  }
}

/** GitLab names a created file with no path `snippetfile<n>.txt`, the first n not taken. */
function generatedPath(taken: ReadonlySet<string>): string {
  for (let n = 1; ; n += 1) {
    const candidate = `snippetfile${n}.txt`;
    if (!taken.has(candidate)) return candidate;
  }
}

/**
 * The tree changes the actions make to the files on the branch, and the paths after them: 422
 * when an action is malformed, 400 (GitLab's "Error updating the snippet") when it names a file
 * that is missing (update, delete, move) or present (create, a move's target), or leaves no file.
 */
export function changesOf(actions: readonly SnippetFileAction[], current: readonly TreeFile[]): { changes: FileChange[]; paths: string[] } {
  if (!actions.length || !actions.every(actionIsValid)) throw invalidActions();
  const files = new Set(current.map((file) => file.path));
  const changes: FileChange[] = [];
  const refuse = (reason: string) => apiError(`Error updating the snippet - ${reason}`);
  for (const action of actions) {
    const target = action.file_path || (action.action === 'create' ? generatedPath(files) : '');
    const source = action.previous_path || target;
    switch (action.action) {
      case 'create':
        if (files.has(target)) throw refuse(`A file with this name already exists: ${target}`);
        files.add(target);
        changes.push({ path: target, content: Buffer.from(action.content!, 'utf8') });
        break;
      case 'update':
      case 'move':
        if (!files.has(source)) throw refuse(`A file with this name doesn't exist: ${source}`);
        if (source !== target && files.has(target)) throw refuse(`A file with this name already exists: ${target}`);
        if (source !== target) {
          files.delete(source);
          changes.push({ path: source, remove: true });
        }
        files.add(target);
        if (action.content !== undefined || source !== target) {
          const blob = current.find((file) => file.path === source)?.blob;
          changes.push(action.content !== undefined || !blob ? { path: target, content: Buffer.from(action.content ?? '', 'utf8') } : { path: target, blob });
        }
        break;
      case 'delete':
        if (!files.has(target)) throw refuse(`A file with this name doesn't exist: ${target}`);
        files.delete(target);
        changes.push({ path: target, remove: true });
        break;
    }
  }
  if (!files.size) throw refuse("Snippet must have at least one file");
  return { changes, paths: [...files].sort(byGitOrder) };
}

/** git's tree order for full paths: bytewise. */
const byGitOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The legacy single-file parameters (`file_name`, `content`) as one action on the snippet's only file. */
export function legacyAction(current: readonly TreeFile[], fileName: string | undefined, content: string | undefined): SnippetFileAction {
  const existing = current[0]?.path;
  if (!existing) return { action: 'create', file_path: fileName ?? '', content: content ?? '' };
  const target = fileName ?? existing;
  return { action: target === existing ? 'update' : 'move', previous_path: existing, file_path: target, ...(content !== undefined ? { content } : {}) };
}
