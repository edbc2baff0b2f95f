import { describe, expect, it } from 'vitest';
import { scanSources } from './source-imports.js';

// #25's start-up target: a command loads what it needs when it needs it. Node compiles every
// module a command imports statically before the command starts, so what `plan`, `status`,
// `versions` and `run` reach through static imports is what they pay for at every start. These
// checks keep the heavy parts they never use out of that reach (timings themselves stay in
// `npm run bench`): the transports and the engine's runner (which load ssh2, execa and every
// module implementation), the XML library, and for `run` the spec schema (zod), the providers'
// planning and execa (local commands only). Dynamic `import()` is fine: it loads when the code path runs.

const scan = scanSources();

/** Files (relative to src/) and packages a src/ file loads through static, non-type imports. */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const i of scan.imports) {
      if (i.from !== file || i.kind !== 'static' || i.typeOnly) continue;
      if (i.to === undefined) {
        if (!i.specifier.startsWith('node:'))
          packages.add(
            i.specifier.startsWith('@')
              ? i.specifier.split('/').slice(0, 2).join('/')
              : i.specifier.split('/')[0]!,
          );
      } else if (!files.has(i.to)) {
        files.add(i.to);
        queue.push(i.to);
      }
    }
  }
  return { files, packages };
}

/** The heavy parts a planning command never runs. */
const NOT_FOR_PLANNING = {
  packages: ['ssh2', 'execa', 'fast-xml-parser', 'listr2', '@aws-sdk/client-ec2'],
  files: [
    'transport/ssh/ssh-transport.ts',
    'transport/local/local-transport.ts',
    'engine/execute.ts',
    'executor/run-module.ts',
  ],
};

describe('what a command loads before it starts', () => {
  it.each([
    ['plan', 'plan/build-plan.ts'],
    ['status', 'engine/state.ts'],
    ['versions', 'versions/versions.ts'],
  ])('`%s` does not load the transports, the runner or the XML library', (command, uses) => {
    const { files, packages } = staticClosure(`cli/commands/${command}.ts`);
    // The check follows real imports: the command does reach what it uses.
    expect(files.has(uses)).toBe(true);
    expect(NOT_FOR_PLANNING.packages.filter((p) => packages.has(p))).toEqual([]);
    expect(NOT_FOR_PLANNING.files.filter((f) => files.has(f))).toEqual([]);
  });

  it('`versions` plans no cluster unless it is given a spec', () => {
    const { files } = staticClosure('cli/commands/versions.ts');
    expect(
      ['cluster/context.ts', 'plan/build-plan.ts', 'provider/index.ts'].filter((f) => files.has(f)),
    ).toEqual([]);
  });

  it("`run` does not load the spec schema or the providers' planning, only their modules", () => {
    const { files, packages } = staticClosure('cli/commands/run.ts');
    expect(files.has('provider/modules.ts')).toBe(true);
    expect(packages.has('zod')).toBe(false);
    expect(
      ['spec/schema.ts', 'provider/index.ts', 'provider/libvirt/libvirt-provider.ts'].filter((f) =>
        files.has(f),
      ),
    ).toEqual([]);
    // execa runs local commands only: a run over SSH never needs it.
    expect(['fast-xml-parser', 'execa'].filter((p) => packages.has(p))).toEqual([]);
  });
});
