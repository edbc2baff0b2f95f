export { StaticProvider } from './static/static-provider.js';
export type { Provider } from './types.js';
