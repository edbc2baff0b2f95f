export * from './command-result.js';
export * from './events.js';
export * from './inventory.js';
export * from './module-outcome.js';
export * from './plan.js';
export * from './provision.js';
export * from './step.js';
export * from './transport.js';
