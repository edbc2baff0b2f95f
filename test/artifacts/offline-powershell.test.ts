import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderString } from '../../src/template/index.js';
import { formatPowerShellErrors, parsePowerShell } from '../helpers/parse-powershell.js';

// The PowerShell the offline branch of prepare-windows.yml ships or runs parses without errors
// (tree-sitter-powershell): the curl.exe shim, and the commands rendered with artifacts_dir set.
const PLAYBOOK = fileURLToPath(new URL('../../playbooks/cluster/prepare-windows.yml', import.meta.url));

type Step = { name: string; win_copy?: { content?: string }; win_shell?: string; when?: string };

const steps = async () => parse(await readFile(PLAYBOOK, 'utf8')) as Step[];
const step = (all: Step[], name: string) => {
  const found = all.find((s) => s.name === name);
  if (!found) throw new Error(`no step "${name}" in prepare-windows.yml`);
  return found;
};

const vars = {
  artifacts_dir: '/srv/artifacts',
  versions: { containerd: '2.3.4', crictl: '1.36.0' },
  kubernetes_version: '1.36.4',
  inventory_hostname: 'WIN-01',
  item: { file: 'windows-flannel-v0.21.5-hostprocess.tar' },
};

describe('prepare-windows.yml offline PowerShell', () => {
  it('the curl.exe shim parses and defines the function the scripts call', async () => {
    const shim = step(await steps(), 'The download shim of the node scripts (offline)').win_copy!.content!;
    expect(formatPowerShellErrors('kubemix-offline.ps1', await parsePowerShell(shim))).toBe('');
    expect(shim).toMatch(/^function curl\.exe \{$/m);
    // The upstream scripts call exactly this form (DownloadFile in both pinned revisions).
    expect(shim).toContain("@('-Lo', '-o', '--output')");
  });

  it('the offline commands dot-source the shim before the unmodified scripts, and parse', async () => {
    const all = await steps();
    for (const name of [
      'Install containerd (Install-Containerd.ps1 installs the Windows features first)',
      'Install containerd (the re-run Install-Containerd.ps1 asks for after the reboot)',
      'Install kubelet and kubeadm (PrepareNode.ps1)',
      'Import the Windows container images into containerd (offline)',
    ]) {
      const rendered = renderString(step(all, name).win_shell!, vars).trim();
      expect(formatPowerShellErrors(name, await parsePowerShell(rendered))).toBe('');
      if (name !== 'Import the Windows container images into containerd (offline)')
        expect(rendered).toMatch(
          /^\. C:\/k\/offline\/kubemix-offline\.ps1; & C:\/k\/(Install-Containerd|PrepareNode)\.ps1 /,
        );
      // Online, the command is the one kubemix always ran.
      const online = renderString(step(all, name).win_shell!, { ...vars, artifacts_dir: undefined });
      expect(online).not.toContain('kubemix-offline');
    }
  });
});
