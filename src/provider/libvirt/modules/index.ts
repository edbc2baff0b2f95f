import type { Module } from '../../../modules/types.js';
import { libvirtDestroyGuestsModule, libvirtDestroyNetworkModule } from './destroy.js';
import { libvirtGoldenCaptureModule } from './golden-capture.js';
import { libvirtGoldenMarkModule } from './golden-marker.js';
import { libvirtGuestsModule } from './guests.js';
import { libvirtImagesModule } from './images.js';
import { libvirtInspectModule, libvirtLeakCheckModule } from './leak-check.js';
import { libvirtNetworkModule } from './network.js';
import { libvirtPreflightModule } from './preflight.js';
import { libvirtRemoveConfigIsoModule } from './remove-config-iso.js';
import { libvirtTunnelModule } from './tunnel.js';
import { windowsFirstLogonModule } from './windows-first-logon.js';
import { windowsGeneralizeModule } from './windows-generalize.js';
import { libvirtWindowsInstallModule } from './windows-install.js';
import { libvirtWindowsPasswordsModule } from './windows-passwords.js';

export {
  libvirtDestroyGuestsModule,
  libvirtDestroyNetworkModule,
  libvirtGoldenCaptureModule,
  libvirtGoldenMarkModule,
  libvirtGuestsModule,
  libvirtImagesModule,
  libvirtInspectModule,
  libvirtLeakCheckModule,
  libvirtNetworkModule,
  libvirtPreflightModule,
  libvirtRemoveConfigIsoModule,
  libvirtTunnelModule,
  libvirtWindowsInstallModule,
  libvirtWindowsPasswordsModule,
  windowsFirstLogonModule,
  windowsGeneralizeModule,
};

/** Every module of the libvirt provider: src/provider/index.ts adds them to the module registry. */
export const libvirtModules: readonly Module<any>[] = [
  libvirtPreflightModule,
  libvirtImagesModule,
  libvirtNetworkModule,
  libvirtGuestsModule,
  libvirtDestroyGuestsModule,
  libvirtDestroyNetworkModule,
  libvirtLeakCheckModule,
  libvirtInspectModule,
  libvirtTunnelModule,
  libvirtWindowsPasswordsModule,
  libvirtWindowsInstallModule,
  windowsFirstLogonModule,
  libvirtRemoveConfigIsoModule,
  libvirtGoldenMarkModule,
  windowsGeneralizeModule,
  libvirtGoldenCaptureModule,
];
