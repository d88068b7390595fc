import type { LabelRow } from '../db/tables/labels.js';

/** GitLab's text colour for a label: dark on light backgrounds, white on dark ones (LabelsHelper#text_color_for_bg). */
export function textColorFor(color: string): string {
  const hex = color.slice(1);
  const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
  const [r, g, b] = [0, 2, 4].map((at) => Number.parseInt(full.slice(at, at + 2), 16));
  return r + g + b > 500 ? '#333333' : '#FFFFFF';
}

/** LabelBasic: what an issue's `labels` shows with `with_labels_details`. */
export function labelBasic(row: LabelRow) {
  return {
    id: row.id,
    name: row.title,
    color: row.color,
    description: row.description,
    text_color: textColorFor(row.color),
  };
}

/** What the Label views add to a row: counts of what carries it (visible to the caller), and whether the caller follows it. */
export interface LabelFacts {
  readonly openIssues: number;
  readonly closedIssues: number;
  readonly openMergeRequests: number;
  readonly subscribed: boolean;
}

/** GroupLabel (ENT Label): a label with its counts and the caller's subscription. */
export function labelView(row: LabelRow, facts: LabelFacts) {
  return Object.assign(labelBasic(row), {
    open_issues_count: facts.openIssues,
    closed_issues_count: facts.closedIssues,
    open_merge_requests_count: facts.openMergeRequests,
    subscribed: facts.subscribed,
  });
}

/** ProjectLabel: a label seen from a project, with its priority there and whether it is the project's own. */
export function projectLabelView(row: LabelRow, facts: LabelFacts, priority: number | null) {
  return Object.assign(labelView(row, facts), { priority, is_project_label: row.project_id !== null });
}
