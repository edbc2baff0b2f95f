/**
 * kubemix as a library: specs, plans, the engine, transports and modules. The CLI (src/cli) is
 * one consumer of this API.
 */

export * from './cluster/index.js';
export * from './engine/index.js';
export * from './errors/index.js';
export { createTransport } from './executor/create-transport.js';
export { runModule } from './executor/run-module.js';
export { type TransportFactory, TransportPool } from './executor/transport-pool.js';
export * from './kubeconfig/index.js';
export { findModule, moduleNames } from './modules/registry.js';
export type { Module, ModuleAction, ModuleContext, ModuleOutcome } from './modules/types.js';
export * from './plan/index.js';
export { LibvirtProvider, type Provider, providerFor, StaticProvider } from './provider/index.js';
export * from './spec/index.js';
export { LocalTransport } from './transport/local/index.js';
export type { ExecRequest, GetRequest, OutputChunk, PutRequest, Transport } from './transport/types.js';
export * from './types/index.js';
export { loadVersions, type Versions } from './versions/versions.js';
