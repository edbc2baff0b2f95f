import { registerModule } from '../modules/registry.js';
import { ec2Modules } from './ec2/modules/index.js';
import { libvirtModules } from './libvirt/modules/index.js';

// Each provider keeps its modules in its own folder (its plan builds their steps with typed
// builders); the module registry sits below the providers and learns of them here. Its own file,
// apart from the providers' planning (index.ts): `kubemix run` runs playbooks that may name these
// modules but plans no cluster, and need not load the spec schema and the providers (#25: start-up).
for (const module of [...libvirtModules, ...ec2Modules]) registerModule(module);
