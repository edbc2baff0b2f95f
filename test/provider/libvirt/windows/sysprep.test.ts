import { describe, expect, it } from 'vitest';
import {
  GENERALIZE_UNATTEND_PATH,
  generalizeScript,
} from '../../../../src/provider/libvirt/windows/golden-image.js';
import {
  sysprepArgumentProblems,
  sysprepArguments,
} from '../../../../src/provider/libvirt/windows/sysprep.js';

// The documented syntax (Microsoft Learn, "Sysprep Command-Line Options",
// https://learn.microsoft.com/en-us/windows-hardware/manufacture/desktop/sysprep-command-line-options):
//   Sysprep.exe [/oobe | /audit] [/generalize] [/reboot | /shutdown | /quit] [/quiet]
//               [/unattend:answerfile] [/mode:vm]

describe('sysprep command line', () => {
  it('generalizes, boots to OOBE, shuts down, quietly, with the generalize answer file', () => {
    const args = sysprepArguments(GENERALIZE_UNATTEND_PATH);
    expect(args).toEqual([
      '/generalize',
      '/oobe',
      '/shutdown',
      '/quiet',
      `/unattend:${GENERALIZE_UNATTEND_PATH}`,
    ]);
    expect(sysprepArgumentProblems(args)).toEqual([]);
  });

  it('is what the generalize script starts, each argument quoted for PowerShell', () => {
    const line = generalizeScript()
      .split('\r\n')
      .find((l) => l.includes('sysprep.exe'));
    expect(line).toContain(
      `-ArgumentList @('/generalize', '/oobe', '/shutdown', '/quiet', '/unattend:${GENERALIZE_UNATTEND_PATH}')`,
    );
  });

  it('refuses what the documented syntax does not allow', () => {
    expect(sysprepArgumentProblems(['/generalize', '/oobe', '/shutdown', '/restart'])).toEqual([
      '/restart: not a sysprep option',
    ]);
    expect(sysprepArgumentProblems(['/oobe', '/audit'])).toEqual(['/oobe and /audit exclude each other']);
    expect(sysprepArgumentProblems(['/reboot', '/shutdown', '/quit'])).toEqual([
      '/reboot and /shutdown and /quit exclude each other',
    ]);
    expect(sysprepArgumentProblems(['/generalize', '/mode:vm'])).toEqual([
      '/mode:vm needs /generalize and /oobe',
    ]);
    expect(sysprepArgumentProblems(['/unattend:'])).toEqual(['/unattend:: no answer file']);
    expect(sysprepArgumentProblems(['/quiet', '/QUIET'])).toEqual(['/QUIET: given twice']);
    expect(sysprepArgumentProblems(['/Generalize', '/OOBE', '/mode:VM'])).toEqual([]);
  });
});
