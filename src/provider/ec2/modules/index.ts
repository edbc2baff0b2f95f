import type { Module } from '../../../modules/types.js';
import {
  ec2DestroyModule,
  ec2InspectModule,
  ec2InstancesModule,
  ec2LeakCheckModule,
  ec2NetworkModule,
  ec2PreflightModule,
  ec2WindowsPasswordsModule,
  ec2WinrmCertificatesModule,
} from './modules.js';

/** Every module of the EC2 provider: src/provider/index.ts adds them to the module registry. */
export const ec2Modules: readonly Module<any>[] = [
  ec2PreflightModule,
  ec2NetworkModule,
  ec2InstancesModule,
  ec2WinrmCertificatesModule,
  ec2WindowsPasswordsModule,
  ec2DestroyModule,
  ec2LeakCheckModule,
  ec2InspectModule,
];
