/**
 * The transport contract lives in src/types (engine, executor and modules share it without
 * importing a wire); re-exported here for the transports.
 */
export type {
  ConnectionDetail,
  ConnectionReport,
  ConnectionState,
  ExecRequest,
  GetRequest,
  OutputChunk,
  PutRequest,
  Transport,
} from '../types/transport.js';
