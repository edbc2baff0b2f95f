/**
 * Bundles the compiled CLI (dist/src/cli/main.js) into dist/bundle/kubemix.js plus shared chunks (scripts/lab/kubemix-cli.ts names it),
 * run by `npm run build` after tsc; package.json's `bin` is the bundle. Why: Node resolves, reads
 * and compiles each of the CLI's ~300 ES modules (and its packages' own) at every start, which cost
 * `kubemix plan` about 0.9 s of CPU here; joined into a few chunks the same code starts in about 60%
 * of that. Nothing is minified or transformed beyond joining modules; dynamic imports stay separate
 * chunks (loaded when a command needs them), and source maps point stack traces back to src/.
 * Packages that find their own files at run time or load native addons stay outside, loaded from
 * node_modules as before.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'rolldown';
import { packageRoot } from '../src/fs/package-root.js';
import { CLI_BUNDLE_DIR } from './lab/kubemix-cli.js';

/** Packages loaded from node_modules at run time rather than joined into the bundle. */
const EXTERNAL_PACKAGES = [
  // web-tree-sitter and the PowerShell grammar find their .wasm files beside their own modules.
  'web-tree-sitter',
  'tree-sitter-powershell',
  // ssh2 loads its optional native crypto binding (and cpu-features) by relative require.
  'ssh2',
  'cpu-features',
  // Loaded through createRequire on first use (src/template/nunjucks-internals.ts,
  // src/provider/ec2/keys.ts, src/provider/libvirt/xml-library.ts), so never seen by a bundler
  // (fast-xml-parser is imported statically by the WinRM transport too: one copy, from node_modules).
  'nunjucks',
  'node-forge',
  'fast-xml-parser',
];

async function bundleCli(): Promise<void> {
  const root = packageRoot();
  const out = join(root, CLI_BUNDLE_DIR);
  await rm(out, { recursive: true, force: true });
  await build({
    input: { kubemix: join(root, 'dist', 'src', 'cli', 'main.js') },
    platform: 'node',
    external: (id) => EXTERNAL_PACKAGES.some((name) => id === name || id.startsWith(`${name}/`)),
    logLevel: 'silent',
    output: { dir: out, format: 'esm', entryFileNames: '[name].js', sourcemap: true },
  });
}

await bundleCli();
