/**
 * Bundles the compiled lab stand-ins (dist/fixtures/lab/standins/<program>.js) into one module
 * graph per program plus shared chunks (dist/fixtures/lab/standins-bundle), run by `npm run build`
 * after tsc. Why: a lab host starts a fresh node for every kubeadm/kubectl/dpkg-query/... call a
 * playbook makes (hundreds per `kubemix up`), and loading ~120 separate modules plus `yaml` and
 * `zod` cost each call about twice the CPU of node's own start. The bundle is the same code:
 * nothing is minified or transformed beyond joining modules. The PowerShell parser's packages
 * stay outside: web-tree-sitter finds its wasm files relative to its own package.
 *
 * CommonJS, with the launcher (fixtures/lab/standins/launch.ts) as one more entry: a lab host runs
 * `node launch.cjs <program>`, which compiles the bundle through V8's code cache (Node 20 caches
 * no ES module's compilation; loading and compiling modules took about 30 % of a profiled kubectl or
 * curl call's CPU in a mixed-cluster e2e run).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'rolldown';
import {
  compiledStandinsDir,
  repoRoot,
  STANDIN_LAUNCHER,
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
  const { output } = await build({
    input: {
      ...Object.fromEntries(STANDIN_PROGRAMS.map((program) => [program, join(compiled, `${program}.js`)])),
      [STANDIN_LAUNCHER]: join(compiled, `${STANDIN_LAUNCHER}.js`),
    },
    platform: 'node',
    external: (id) => EXTERNAL_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`)),
    logLevel: 'silent',
    // import() of an outside package becomes require(): V8 loses the dynamic-import callback of a
    // script compiled from its code cache on this Node (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING).
    output: {
      dir: out,
      format: 'cjs',
      entryFileNames: '[name].cjs',
      chunkFileNames: '[name]-[hash].cjs',
      dynamicImportInCjs: false,
    },
  });
  // The launcher compiles without a dynamic-import callback: an import() left in would fail at
  // run time (and the API server's validation swallows a failed model load).
  const dynamic = output.filter((chunk) => chunk.type === 'chunk' && /\bimport\(/.test(chunk.code));
  if (dynamic.length > 0)
    throw new Error(
      `import() left in the stand-in bundle: ${dynamic.map((chunk) => chunk.fileName).join(', ')}`,
    );
}

await bundleStandins();
