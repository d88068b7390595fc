import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { ProjectRow } from '../db/tables/projects.js';
import type { Actor } from '../services/users/authentication.js';
import type { UploadedFile } from '../storage/uploaded-file.js';
import type { Input } from './params.js';

declare global {
  namespace Express {
    interface Request {
      /** Query, form, JSON and multipart parameters merged; see api/middleware/input.ts. */
      input: Input;
      files: UploadedFile[];
      actor: Actor | null;
      /** Set by the loadProject guard. */
      project?: ProjectRow;
      /** Set by the loadGroup guard. */
      group?: NamespaceRow;
      /** The body and query parameters the matched route declares (its guards' names); see api/routes.ts. */
      declaredParams?: ReadonlySet<string>;
    }
    interface Locals {
      /** The matched route template, for logs and metrics. */
      route?: string;
    }
  }
}
