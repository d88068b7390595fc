import type { NodeStatusLine } from './node-statuses.js';
import type { GeoNodeRow } from './nodes.js';

/** `geoforge geo nodes`: one line per node. */
export function formatNodeTable(nodes: readonly GeoNodeRow[]): string {
  const rows = nodes.map((node) => [String(node.id), node.name, node.url, String(node.primary === 1), String(node.enabled === 1)]);
  return formatTable(['id', 'name', 'url', 'primary', 'enabled'], rows);
}

/** `geoforge geo status`: one line per node; times in UTC, lag in seconds, `-` where nothing is known. */
export function formatNodeStatusTable(lines: readonly NodeStatusLine[]): string {
  const rows = lines.map(({ node, status }) => {
    const identity = [String(node.id), node.name, node.primary === 1 ? 'primary' : 'secondary'];
    if (!status) return [...identity, '-', "unknown: a primary's status is computed from its own database", '-', '-', '-', '-'];
    return [
      ...identity,
      status.healthy ? 'yes' : 'no',
      status.health,
      text(status.db_replication_lag_seconds),
      text(status.last_event_id),
      text(status.cursor_last_event_id),
      timeOf(status.last_successful_status_check_timestamp),
    ];
  });
  return formatTable(['id', 'name', 'role', 'healthy', 'health', 'lag s', 'last event', 'cursor', 'last report'], rows);
}

/** `geoforge geo status --json`: each node with its status (null as in the table). */
export function formatNodeStatusJson(lines: readonly NodeStatusLine[]): string {
  const nodes = lines.map(({ node, status }) => ({
    node: { id: node.id, name: node.name, url: node.url, primary: node.primary === 1, enabled: node.enabled === 1 },
    status,
  }));
  return JSON.stringify(nodes, null, 2);
}

const text = (value: number | null) => (value === null ? '-' : String(value));
const timeOf = (seconds: number | null) => (seconds === null ? '-' : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'));

/** Columns padded to their widest cell, two spaces apart, the header first; the last column is not padded. */
function formatTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  return [header, ...rows].map((cells) => cells.map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]))).join('  ')).join('\n');
}
