#!/usr/bin/env node
import { EXIT, EXIT_CODES, KubemixError } from '../errors/index.js';
import { didYouMean } from './did-you-mean.js';
import { err, out } from './output.js';
import { VERBOSE_HELP } from './verbose-lines.js';
import { kubemixVersion } from './version.js';

type Command = { load: () => Promise<(argv: string[]) => Promise<number>>; summary: string };

// Commands load lazily: `kubemix run` should not pay for zod, listr2 or the engine it does not use.
const commands: Record<string, Command> = {
  plan: {
    load: async () => (await import('./commands/plan.js')).planCommand,
    summary: 'print the task graph `up` would run, per host',
  },
  up: {
    load: async () => (await import('./commands/up.js')).upCommand,
    summary: 'build the cluster (resumable)',
  },
  down: {
    load: async () => (await import('./commands/down.js')).downCommand,
    summary: 'tear the cluster down',
  },
  verify: {
    load: async () => (await import('./commands/verify.js')).verifyCommand,
    summary: 'deploy the validation workloads and run the six network checks on a built cluster',
  },
  ci: {
    load: async () => (await import('./commands/ci.js')).ciCommand,
    summary: 'build, verify and always tear down; write JUnit, an HTML report and artifacts (for CI)',
  },
  status: {
    load: async () => (await import('./commands/status.js')).statusCommand,
    summary: 'show the state of the last run',
  },
  kubeconfig: {
    load: async () => (await import('./commands/kubeconfig.js')).kubeconfigCommand,
    summary: "print the path of a built cluster's kubeconfig, or --merge it into yours",
  },
  run: {
    load: async () => (await import('./commands/run.js')).runCommand,
    summary: 'run an Ansible-style playbook against an inventory',
  },
  artifacts: {
    load: async () => (await import('./commands/artifacts.js')).artifactsCommand,
    summary: 'download every file the build needs into a directory (offline mode), or --check one',
  },
  versions: {
    load: async () => (await import('./commands/versions.js')).versionsCommand,
    summary: 'print every component, its version or pin, where it goes and where it comes from',
  },
  schema: {
    load: async () => (await import('./commands/schema.js')).schemaCommand,
    summary: 'print the JSON Schema of cluster specs',
  },
};

function mainHelp(): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  return `kubemix: mixed Linux + Windows Kubernetes lab clusters with one command

Usage: kubemix <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`)
  .join('\n')}

Run \`kubemix <command> --help\` for a command's options. Every command also takes:
${VERBOSE_HELP}

Exit codes (every command, run included):
${exitCodeTable()}`;
}

/** EXIT_CODES as help lines: `    0  done ...`. */
function exitCodeTable(): string {
  return Object.values(EXIT_CODES)
    .sort((a, b) => a.code - b.code)
    .map((row) => `  ${String(row.code).padStart(3)}  ${row.meaning}`)
    .join('\n');
}

/**
 * The one catch: typed errors become their exit code and one line (no stack trace);
 * anything else is a bug and says so.
 */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    out(mainHelp());
    return name === undefined ? EXIT.badInput : EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    out(kubemixVersion());
    return EXIT.ok;
  }
  const command = commands[name];
  if (!command) {
    const guess = didYouMean(name, Object.keys(commands));
    err(
      `kubemix: unknown command "${name}" (${guess ? `did you mean ${guess}? ` : ''}commands: ${Object.keys(commands).join(', ')})`,
    );
    return EXIT.badInput;
  }
  try {
    const run = await command.load();
    return await run(rest);
  } catch (error) {
    if (error instanceof KubemixError) {
      err(error.message);
      return error.exitCode;
    }
    err(`kubemix: internal error: ${(error as Error)?.stack ?? String(error)}`);
    err('This is a bug in kubemix: please report it with the command you ran.');
    return EXIT.internalError;
  }
}

/**
 * Everything a command opens is closed when it returns, and the process then ends by itself. A
 * handle that outlives the command must not keep it running: a CI run's `up` (guests behind a
 * remote hypervisor, reached through it as a jump host) ended its run, then sat for good on one
 * SSH connection to that hypervisor that nothing owned any more. A second after the command
 * returns, the process exits with its code (stdout and stderr are written synchronously to files
 * and pipes on Linux, so nothing printed is lost).
 */
function exitSoon(): void {
  setTimeout(() => process.exit(), 1000).unref();
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    exitSoon();
  },
  (error: unknown) => {
    err(`kubemix: internal error: ${String(error)}`);
    process.exitCode = EXIT.internalError;
    exitSoon();
  },
);
