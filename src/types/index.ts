export * from './command-result.js';
export * from './events.js';
export * from './inventory.js';
export * from './plan.js';
