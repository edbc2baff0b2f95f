export type { ExecRequest, GetRequest, OutputChunk, PutRequest, Transport } from './types.js';
