import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors/index.js';
import { parseSpecText } from '../../src/spec/parse.js';

// A libvirt spec with one Windows group of the given windowsVersion (YAML as a user writes it).
const libvirtSpec = (version: string) =>
  [
    'name: lab',
    'provider:',
    '  type: libvirt',
    '  images:',
    '    windows:',
    '      source: /isos/SERVER_EVAL_x64FRE_en-us.iso',
    `      sha256: "${'0'.repeat(64)}"`,
    'nodes:',
    '  controlPlane: { count: 1 }',
    '  workers:',
    '    - name: win',
    '      os: windows',
    `      windowsVersion: "${version}"`,
    '      count: 1',
  ].join('\n');

describe('windowsVersion of libvirt Windows guests', () => {
  it.each(['2019', '2022', '2025'])('accepts Windows Server %s', (version) => {
    const spec = parseSpecText(libvirtSpec(version), 'spec.yaml');
    expect(spec.nodes.workers[0]?.windowsVersion).toBe(version);
  });

  it('refuses a version kubemix does not install with one line naming the field', () => {
    let error: unknown;
    try {
      parseSpecText(libvirtSpec('2016'), 'spec.yaml');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(SpecError);
    const message = (error as SpecError).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toBe(
      'spec.yaml:13:23: nodes.workers.0.windowsVersion: must be one of "2019", "2022", "2025"',
    );
  });
});
