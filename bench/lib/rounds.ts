/**
 * Measures every target once per round, in turn (A, B, A, B, ...), so a change in machine load
 * during the run hits all targets alike instead of one of them.
 */
export async function interleave<T extends string, R>(
  targets: readonly T[],
  rounds: number,
  measure: (target: T, round: number) => Promise<R>,
): Promise<Record<T, R[]>> {
  const results = Object.fromEntries(targets.map((target) => [target, [] as R[]])) as Record<T, R[]>;
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) results[target].push(await measure(target, round));
  }
  return results;
}
