export { libvirtDestroyGuestsModule, libvirtDestroyNetworkModule } from './destroy.js';
export { libvirtGuestsModule } from './guests.js';
export { libvirtImagesModule } from './images.js';
export { libvirtInspectModule, libvirtLeakCheckModule } from './leak-check.js';
export { libvirtNetworkModule } from './network.js';
export { libvirtPreflightModule } from './preflight.js';
