/**
 * Bundles the compiled lab stand-ins (dist/fixtures/lab/standins/<program>.js) into one module
 * graph per program plus shared chunks (dist/fixtures/lab/standins-bundle), run by `npm run build`
 * after tsc. Why: a lab host starts a fresh node for every kubeadm/kubectl/dpkg-query/... call a
 * playbook makes (hundreds per `kubemix up`), and loading ~120 separate modules plus `yaml` and
 * `zod` cost each call about twice the CPU of node's own start. The bundle is the same code:
 * nothing is minified or transformed beyond joining modules. The PowerShell parser's packages
 * stay outside: web-tree-sitter finds its wasm files relative to its own package.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'rolldown';
import {
  compiledStandinsDir,
  repoRoot,
  STANDIN_PROGRAMS,
  standinsBundleDir,
} from '../../fixtures/lab/install-standins.js';

/** Packages loaded from node_modules at run time rather than joined into the bundle. */
const EXTERNAL_PACKAGES = ['web-tree-sitter', 'tree-sitter-powershell'];

async function bundleStandins(): Promise<void> {
  const root = repoRoot();
  const compiled = compiledStandinsDir(root);
  const out = standinsBundleDir(root);
  await rm(out, { recursive: true, force: true });
  await build({
    input: Object.fromEntries(STANDIN_PROGRAMS.map((program) => [program, join(compiled, `${program}.js`)])),
    platform: 'node',
    external: (id) => EXTERNAL_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`)),
    logLevel: 'silent',
    output: { dir: out, format: 'esm', entryFileNames: '[name].js' },
  });
}

await bundleStandins();
