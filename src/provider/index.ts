import { registerModule } from '../modules/registry.js';
import type { ClusterSpec } from '../spec/schema.js';
import { Ec2Provider } from './ec2/ec2-provider.js';
import { ec2Modules } from './ec2/modules/index.js';
import { LibvirtProvider } from './libvirt/libvirt-provider.js';
import { libvirtModules } from './libvirt/modules/index.js';
import { StaticProvider } from './static/static-provider.js';
import type { Provider } from './types.js';

export { LOCALHOST } from '../types/localhost.js';
export { Ec2Provider } from './ec2/ec2-provider.js';
export { LibvirtProvider } from './libvirt/libvirt-provider.js';
export { StaticProvider } from './static/static-provider.js';
export type * from './types.js';

// Each provider keeps its modules in its own folder (its plan builds their steps with typed
// builders); the module registry sits below the providers and learns of them here, where every
// path that plans or runs a cluster (plan/, cluster/, the library's entry) passes.
for (const module of [...libvirtModules, ...ec2Modules]) registerModule(module);

/** The provider of a spec. */
export function providerFor(spec: ClusterSpec): Provider {
  switch (spec.provider.type) {
    case 'static':
      return new StaticProvider();
    case 'libvirt':
      return new LibvirtProvider();
    case 'ec2':
      return new Ec2Provider();
  }
}
