import type { LabelRow } from '../../db/tables/labels.js';
import type { HookLabel } from '../hooks/payloads.js';

/** A label as the issue and merge request hook payloads take it. */
export const hookLabel = (label: LabelRow): HookLabel => ({ ...label });

/** A hook payload's `changes.labels` for a write that added and removed some: the labels before it, and `current`, those after it. */
export function labelHookChanges(current: readonly LabelRow[], labels: { readonly added: readonly LabelRow[]; readonly removed: readonly LabelRow[] }): readonly [HookLabel[], HookLabel[]] {
  const previous = [...current.filter((label) => !labels.added.some((added) => added.id === label.id)), ...labels.removed];
  return [previous.map(hookLabel), current.map(hookLabel)];
}
