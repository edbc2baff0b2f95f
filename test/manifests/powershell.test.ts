import { describe, expect, it } from 'vitest';
import { MANIFEST_NAMES, renderManifestObjects } from '../../src/manifests/index.js';
import { embeddedPowerShell, formatPowerShellErrors, parsePowerShell } from '../helpers/parse-powershell.js';
import { VAR_SETS } from './manifest-vars.js';

describe.each(VAR_SETS)('PowerShell embedded in the manifests with %s', (_label, vars) => {
  const objects = MANIFEST_NAMES.flatMap((name) => renderManifestObjects(name, vars));
  const scripts = embeddedPowerShell(objects);

  it('finds every script we ship: both run.ps1 entries and the powershell.exe -Command lines (one per win-webserver version)', () => {
    expect(scripts.map((s) => s.where).sort()).toEqual([
      'ConfigMap kube-flannel/kube-flannel-windows-cfg data.run.ps1',
      'ConfigMap kube-system/kube-proxy-windows data.run.ps1',
      'DaemonSet kube-flannel/kube-flannel-ds-windows-amd64 container kube-flannel -Command',
      'DaemonSet kube-system/kube-proxy-windows container kube-proxy -Command',
      ...vars.windows_workloads.map(
        (w) => `Deployment default/win-webserver-${w.version} container windowswebserver -Command`,
      ),
    ]);
  });

  it('every script parses without syntax errors', async () => {
    for (const script of scripts) {
      const errors = await parsePowerShell(script.source);
      expect(errors, formatPowerShellErrors(script.where, errors)).toEqual([]);
    }
  });

  it('the DaemonSets run the run.ps1 of the ConfigMap they mount', () => {
    for (const ds of objects.filter((o) => o.kind === 'DaemonSet' && o.metadata.name.includes('windows'))) {
      const spec = ds['spec'] as {
        template: {
          spec: {
            containers: { args: string[]; volumeMounts: { name: string; mountPath: string }[] }[];
            volumes: { name: string; configMap?: { name: string } }[];
          };
        };
      };
      const pod = spec.template.spec;
      const container = pod.containers[0]!;
      const runScript = /"([^"]+)\\run\.ps1"/.exec(container.args.at(-1)!)?.[1];
      expect(runScript, ds.metadata.name).toBeDefined();
      const mount = container.volumeMounts.find(
        (m) => m.mountPath.replace(/\/$/, '').replaceAll('/', '\\') === `\\${runScript}`,
      );
      expect(mount, `${ds.metadata.name} mounts ${runScript}`).toBeDefined();
      const configMapName = pod.volumes.find((v) => v.name === mount!.name)?.configMap?.name;
      const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === configMapName);
      expect(
        (configMap?.['data'] as Record<string, string> | undefined)?.['run.ps1'],
        `${configMapName} has run.ps1`,
      ).toBeTypeOf('string');
    }
  });
});
