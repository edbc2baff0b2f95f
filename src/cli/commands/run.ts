import { EXIT, UsageError } from '../../errors/index.js';
import { createTransport } from '../../executor/create-transport.js';
import { formatRecap, loadInventory, parseExtraVars, runPlaybook } from '../../playbook/index.js';
// A playbook may name a provider's modules (libvirt_*, ec2_*) as up's plan does: this adds them to
// the module registry when it loads (the providers' planning is not loaded: run plans no cluster).
import '../../provider/modules.js';
import { choiceOption, intOption, onePositional, parseCommandArgs, verbosity } from '../options.js';
import { err, out } from '../output.js';
import { startRunSession } from '../run-session.js';
import { VERBOSE_HELP } from '../verbose-lines.js';

export const runHelp = `Usage: kubemix run PLAYBOOK -i INVENTORY [options]

Run an Ansible-style playbook over SSH, WinRM or local connections, like ansible-playbook.

Options:
  -i, --inventory FILE       Ansible YAML inventory (required)
  -e, --extra-vars VARS      key=value pairs, JSON, or @file; repeatable; highest precedence
  -l, --limit PATTERN        only hosts matching the pattern
  -C, --check                dry run: report what would change, change nothing
  -f, --forks N              hosts worked on at once (default 5)
  -t, --tags TAGS            only tasks with these tags (comma separated)
      --skip-tags TAGS       skip tasks with these tags
  --log-format text|json     plain lines or one JSON event per line (default: a live task list
                             on a terminal, plain lines otherwise)
${VERBOSE_HELP}

Exit codes (kubemix's table, see kubemix --help): 0 ok, 1 a host failed or was unreachable (the
recap tells which), 2 bad input (playbook, inventory, flags; with the file, line and column),
130 interrupted.`;

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', argv, {
    inventory: { type: 'string', short: 'i' },
    'extra-vars': { type: 'string', short: 'e', multiple: true },
    limit: { type: 'string', short: 'l' },
    check: { type: 'boolean', short: 'C' },
    forks: { type: 'string', short: 'f' },
    tags: { type: 'string', short: 't' },
    'skip-tags': { type: 'string' },
    'log-format': { type: 'string' },
  });
  if (values.help) {
    out(runHelp);
    return EXIT.ok;
  }
  const playbook = onePositional('run', positionals, 'playbook');
  if (!values.inventory)
    throw new UsageError('kubemix run: -i INVENTORY is required (see kubemix run --help)');
  const forks = intOption('forks', values.forks, { min: 1 });
  const logFormat = choiceOption('log-format', values['log-format'], ['text', 'json'] as const) ?? 'text';
  const inventory = await loadInventory(values.inventory);
  for (const warning of inventory.warnings ?? []) err(warning);
  const extraVars = parseExtraVars(values['extra-vars'] ?? []);
  const tags = list(values.tags);
  const skipTags = list(values['skip-tags']);

  const session = await startRunSession({ logFormat, verbosity: verbosity(values) });
  let result: Awaited<ReturnType<typeof runPlaybook>>;
  try {
    result = await runPlaybook({
      playbook,
      inventory,
      extraVars,
      transports: createTransport,
      onEvent: session.onEvent,
      signal: session.signal,
      ...(values.limit !== undefined ? { limit: values.limit } : {}),
      ...(values.check ? { check: true } : {}),
      ...(forks !== undefined ? { forks } : {}),
      ...(tags ? { tags } : {}),
      ...(skipTags ? { skipTags } : {}),
    });
  } finally {
    await session.finish();
  }
  if (logFormat !== 'json') out(`\n${formatRecap(result)}`);
  return result.exitCode;
}
