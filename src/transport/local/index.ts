export { LocalTransport } from './local-transport.js';
