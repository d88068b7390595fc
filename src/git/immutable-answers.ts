/**
 * Answers that depend only on object ids never change: a commit's record, the last commit that
 * touched a path below a commit, a page of a commit's history, whether one commit is an ancestor
 * of another. Hot reads (a branch's head, a file on the default branch) ask the same questions
 * again and again; each kind keeps its answers in a bounded map, least recently used dropped first.
 * Keys include the repository: an object a repository lacks (a secondary still syncing) is never
 * answered from another's.
 */
export class ImmutableAnswers<V> {
  private readonly answers = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    const value = this.answers.get(key);
    if (value !== undefined) {
      this.answers.delete(key);
      this.answers.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.answers.delete(key);
    this.answers.set(key, value);
    if (this.answers.size > this.max) this.answers.delete(this.answers.keys().next().value!);
  }
}
