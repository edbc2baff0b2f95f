/**
 * kubemix as a library: specs, plans, the engine, transports and modules. The CLI (src/cli) is
 * one consumer of this API.
 */
export * from './errors/index.js';
export * from './types/index.js';
export * from './spec/index.js';
export * from './plan/index.js';
export * from './engine/index.js';
export type { ExecRequest, GetRequest, OutputChunk, PutRequest, Transport } from './transport/types.js';
export { LocalTransport } from './transport/local/index.js';
export { createTransport } from './executor/create-transport.js';
export { TransportPool, type TransportFactory } from './executor/transport-pool.js';
export { runModule } from './executor/run-module.js';
export type { Module, ModuleAction, ModuleContext, ModuleOutcome } from './modules/types.js';
export { findModule, moduleNames } from './modules/registry.js';
export { StaticProvider, type Provider } from './provider/index.js';
export { loadVersions, type Versions } from './versions/versions.js';
