/**
 * Where an epic's issues sit (issue 16, item 5): sparse integer positions, EPIC_POSITION_GAP apart
 * when laid out afresh, so a move takes the midpoint of its new neighbours and rewrites one row.
 * Only when two neighbours are adjacent integers (the gap closed) does a move lay the whole epic
 * out again (a rebalance), rewriting just the rows whose position changes.
 */
export const EPIC_POSITION_GAP = 1024;

export interface Positioned {
  readonly id: number;
  readonly relative_position: number;
}

/** The position a new last item takes. */
export const positionAfterLast = (last: number | null): number => (last === null ? EPIC_POSITION_GAP : last + EPIC_POSITION_GAP);

/** The rows to write (id and new position) so that `moving` ends at `index` of `others` (the epic in order, without it). */
export function placeAt(others: readonly Positioned[], moving: Positioned, index: number): { id: number; position: number }[] {
  const lower = others[index - 1]?.relative_position;
  const upper = others[index]?.relative_position;
  if (lower !== undefined && upper !== undefined && lower < moving.relative_position && moving.relative_position < upper) return [];
  if (lower === undefined && upper === undefined) return [];
  if (lower === undefined) return moving.relative_position < upper! ? [] : [{ id: moving.id, position: upper! - EPIC_POSITION_GAP }];
  if (upper === undefined) return moving.relative_position > lower ? [] : [{ id: moving.id, position: lower + EPIC_POSITION_GAP }];
  if (upper - lower >= 2) return [{ id: moving.id, position: Math.floor((lower + upper) / 2) }];
  const order = [...others.slice(0, index), moving, ...others.slice(index)];
  return order.flatMap((row, at) => ((at + 1) * EPIC_POSITION_GAP === row.relative_position ? [] : [{ id: row.id, position: (at + 1) * EPIC_POSITION_GAP }]));
}
