import type { ClusterSpec } from '../spec/schema.js';
import { Ec2Provider } from './ec2/ec2-provider.js';
import { LibvirtProvider } from './libvirt/libvirt-provider.js';
// Every path that plans or runs a cluster (plan/, cluster/, the library's entry) passes here, so
// the providers' modules are registered wherever their steps are planned (modules.ts).
import './modules.js';
import { StaticProvider } from './static/static-provider.js';
import type { Provider } from './types.js';

export { LOCALHOST } from '../types/localhost.js';
export { Ec2Provider } from './ec2/ec2-provider.js';
export { LibvirtProvider } from './libvirt/libvirt-provider.js';
export { StaticProvider } from './static/static-provider.js';
export type * from './types.js';

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
