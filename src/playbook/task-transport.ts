import type { ExecRequest, Transport } from '../transport/types.js';

/** A task's `become`: off, on (root), or as a user. */
export type TaskBecome = ExecRequest['become'];

/** Adds the task's become and environment to every command a module runs. */
export function taskTransport(
  transport: Transport,
  become: TaskBecome,
  env: Record<string, string> | undefined,
): Transport {
  if (become === undefined && env === undefined) return transport;
  return {
    host: transport.host,
    kind: transport.kind,
    connect: () => transport.connect(),
    close: () => transport.close(),
    put: (request) => transport.put(request),
    get: (request) => transport.get(request),
    exec: (request) => {
      const merged = { ...request };
      if (request.become === undefined && become !== undefined) merged.become = become;
      if (env !== undefined) merged.env = { ...env, ...request.env };
      return transport.exec(merged);
    },
  };
}
