/** The p-th percentile (0-100) of the values, interpolating linearly between the closest ranks. */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) throw new Error('percentile of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low] + (sorted[high] - sorted[low]) * (rank - low);
}

export const median = (values: readonly number[]): number => percentile(values, 50);
