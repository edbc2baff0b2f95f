import { describe, expect, it } from 'vitest';
import { parseModuleHeader } from '../../../src/modules/windows/script.js';
import { wrapScript } from '../../../src/transport/powershell/powershell.js';
import { formatPowerShellErrors, parsePowerShell } from '../../helpers/parse-powershell.js';
import { representativeScripts } from './scripts.js';

// Every script shape a Windows module can send must be valid PowerShell, alone and inside the
// transport's exec wrapper (what the host really receives).
describe('Windows module scripts parse as PowerShell', () => {
  for (const [name, script] of Object.entries(representativeScripts())) {
    it(name, async () => {
      expect(parseModuleHeader(script)?.module).toBe(name.split(' ')[0]);
      expect(formatPowerShellErrors(name, await parsePowerShell(script))).toBe('');
      const wrapped = wrapScript(script, { env: { A: 'b' }, cwd: 'C:\\k' });
      expect(formatPowerShellErrors(`${name} (wrapped)`, await parsePowerShell(wrapped))).toBe('');
    });
  }

  it('the checker does catch broken PowerShell', async () => {
    expect((await parsePowerShell("if ($x) { Write-Output 'a'")).length).toBeGreaterThan(0);
  });
});
