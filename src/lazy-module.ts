import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS dependency loaded at its first use rather than at boot, for the few large ones that
 * only some requests need (Markdown rendering, SSH key parsing): a site starts, and so restarts
 * after a crash or a failover, faster. Async code imports such modules with `await import()`.
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
