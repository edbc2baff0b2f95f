import { StepDefinitionError } from '../errors/index.js';
import { runModule } from '../executor/run-module.js';
import { findModule, moduleNames } from '../modules/registry.js';
import type { StepExecutor } from './types.js';

/**
 * The default {@link StepExecutor}: looks the module up in the registry and drives it with
 * runModule over the host's pooled transport.
 */
export const moduleStepExecutor: StepExecutor = async (request) => {
  const module = findModule(request.step.module);
  if (!module) {
    throw new StepDefinitionError(
      `unknown module "${request.step.module}" (known: ${moduleNames().join(', ')})`,
    );
  }
  const args = request.step.args;
  try {
    module.parseArgs(args);
  } catch (error) {
    throw new StepDefinitionError(`bad arguments for module "${module.name}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  return runModule({
    module,
    args,
    context: {
      host: request.host,
      os: request.host.os,
      vars: request.vars,
      checkMode: false,
      ...(request.ledger ? { ledger: request.ledger } : {}),
    },
    transport: request.transport,
    signal: request.signal,
    onOutput: request.onOutput,
    onProgress: request.onProgress,
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
  });
};
