import { type RawArgs, rejectUnknown } from '../../../modules/args.js';
import { stepBuilder } from '../../../modules/step-builder.js';
import type { Module, ModuleRun } from '../../../modules/types.js';
import { generalizeScript } from '../windows/golden-image.js';
import { reason } from './common.js';

/**
 * `windows_generalize` (on the first Windows guest of a hypervisor, over its own WinRM or SSH
 * connection, once its first logon is done): runs the generalize script (windows/golden-image.ts:
 * cached answer files removed, the generalize answer file written, sysprep started with
 * `/generalize /oobe /shutdown`). sysprep runs on after the script returns and powers the guest
 * off; libvirt_golden_capture, on the hypervisor, waits for that.
 */
export const windowsGeneralizeModule: Module<Record<string, never>> = {
  name: 'windows_generalize',
  os: 'windows',
  parseArgs(raw: RawArgs) {
    rejectUnknown('windows_generalize', raw, []);
    return {};
  },
  *run(): ModuleRun {
    const ran = yield { kind: 'exec', command: generalizeScript(), timeoutMs: 120_000 };
    if (ran.failed) return { changed: false, failed: true, msg: `cannot start sysprep: ${reason(ran)}` };
    return {
      changed: true,
      failed: false,
      msg: 'sysprep is generalizing the guest; it powers off when done',
    };
  },
};

/** A windows_generalize plan step (it takes no arguments). */
export const windowsGeneralizeStep = stepBuilder(windowsGeneralizeModule);
