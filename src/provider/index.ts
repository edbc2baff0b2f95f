export type { Provider } from './types.js';
export { StaticProvider } from './static/static-provider.js';
