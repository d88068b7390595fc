import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderRouteIndex, ROUTE_INDEX_DOC, routeIndex, withRouteIndex } from '../../src/api/route-index.js';

/**
 * `npm run routes:doc`: writes the generated route index of docs/routes.md (between its markers)
 * from the route table; test/unit/route-index.test.ts fails while the document differs.
 */
const docPath = path.resolve(import.meta.dirname, '../..', ROUTE_INDEX_DOC);
const entries = routeIndex();
const before = readFileSync(docPath, 'utf8');
const after = withRouteIndex(before, renderRouteIndex(entries));
if (after !== before) writeFileSync(docPath, after);
console.log(`routes:doc: ${entries.length} routes, ${ROUTE_INDEX_DOC} ${after === before ? 'unchanged' : 'updated'}`);
