import { createRequire } from 'node:module';
import type * as FastXmlParser from 'fast-xml-parser';

let library: typeof FastXmlParser | undefined;

/**
 * fast-xml-parser, loaded on first use. The libvirt modules build and read XML only when they
 * run, but every command that plans a cluster or runs a playbook registers them (provider/modules.ts):
 * loaded at import, the parser and its dependencies (about 250 KB of source) were compiled at
 * every start of `plan`, `status` and `run` (#25: start-up).
 */
export function fastXmlParser(): typeof FastXmlParser {
  library ??= createRequire(import.meta.url)('fast-xml-parser') as typeof FastXmlParser;
  return library;
}
