import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderRouteIndex, routeIndex, withRouteIndex } from '../../src/api/route-index.js';

/**
 * `npm run routes:readme`: writes the README's generated route index (between its markers) from
 * the route table; test/unit/route-index.test.ts fails while the README differs.
 */
const readmePath = path.resolve(import.meta.dirname, '../../README.md');
const entries = routeIndex();
const before = readFileSync(readmePath, 'utf8');
const after = withRouteIndex(before, renderRouteIndex(entries));
if (after !== before) writeFileSync(readmePath, after);
console.log(`routes:readme: ${entries.length} routes, README ${after === before ? 'unchanged' : 'updated'}`);
