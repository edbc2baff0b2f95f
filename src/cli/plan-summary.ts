import { runTimeValues, topologicalOrder } from '../plan/index.js';
import type { InventoryHost } from '../types/inventory.js';
import type { Plan } from '../types/plan.js';
import { fitTable, wrapText } from './render/fit-table.js';

/** Inputs of {@link formatPlanSummary}. */
export interface PlanSummaryOptions {
  /** Every line is at most this wide (terminal-width.ts). */
  width: number;
  /** Lines printed under the title: the versions headline of an `up` plan (none for `down`). */
  headline?: string[];
  /** How to ask for the rest (`kubemix plan <spec> --detail`), printed last. */
  more?: string;
}

const longest = (names: readonly string[]) => Math.max(0, ...names.map((n) => n.length));

/** A list of task names, its first three and how many more (an address is read by every task on the host). */
function briefly(names: readonly string[]): string {
  if (names.length === 0) return '-';
  if (names.length <= 3) return names.join(', ');
  return `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/** How kubemix reaches a host, as the summary's REACHED column says it. */
export function reachedBy(host: InventoryHost): string {
  const port = host.port === undefined ? '' : `:${host.port}`;
  const reserved = host.vars?.['kubemix_address'] === 'reserved' ? ' (DHCP reservation)' : '';
  const address = host.address ? `${host.address}${port}${reserved}` : '(address recorded at create-hosts)';
  const via = host.jump ? ` via ${host.jump.name}` : '';
  const placed = typeof host.vars?.['hypervisor'] === 'string' ? `, on ${host.vars['hypervisor']}` : '';
  return `${host.connection} ${address}${via}${placed}`;
}

/**
 * The plan as a reader first wants it, in the manner of `terraform plan` and `ansible-playbook
 * --list-tasks`: the hosts, the tasks in order with where they run and what they wait for, and
 * what only the run decides; no module arguments (`--detail` has them). Every line fits `width`. Pure.
 */
export function formatPlanSummary(plan: Plan, options: PlanSummaryOptions): string {
  const { width } = options;
  const paragraph = (text: string) => wrapText(text, width);
  const lines: string[] = [
    ...paragraph(`Plan for cluster ${plan.cluster}: ${plan.tasks.length} tasks, ${plan.hosts.length} hosts`),
    ...(options.headline ?? []).flatMap(paragraph),
    '',
    'Hosts:',
    ...fitTable(
      [
        // Host names are never cut either: the state, status and the run's lines name them.
        { header: 'NAME', overflow: 'truncate', minWidth: Number.MAX_SAFE_INTEGER },
        { header: 'ROLE', overflow: 'truncate' },
        { header: 'OS', overflow: 'wrap' },
        { header: 'REACHED', overflow: 'wrap' },
      ],
      plan.hosts.map((h) => [
        h.name,
        h.role,
        h.windowsVersion ? `windows ${h.windowsVersion}` : h.os,
        reachedBy(h),
      ]),
      { width, indent: '  ' },
    ),
    '',
    'Tasks, in order:',
    ...fitTable(
      [
        // A task name is never cut: it is what --stop-after, --from and the run's lines name.
        { header: 'TASK', overflow: 'truncate', minWidth: Number.MAX_SAFE_INTEGER },
        // Lists wrap between names, not inside one, while the width allows.
        { header: 'RUNS ON', overflow: 'wrap', minWidth: longest(plan.tasks.flatMap((t) => t.hosts)) + 1 },
        { header: 'WAITS FOR', overflow: 'wrap', minWidth: longest(plan.tasks.flatMap((t) => t.needs)) + 1 },
        // The description gives way first down to 40 columns; below that the lists wrap (losing
        // nothing) before it is cut further (at 100 columns it was cut to 12 characters).
        {
          header: 'WHAT',
          overflow: 'truncate',
          minWidth: 12,
          shrinksFirst: true,
          shrinksFirstTo: 40,
          optional: true,
        },
      ],
      topologicalOrder(plan.tasks).map((t) => [
        t.name,
        t.hosts.length > 0 ? t.hosts.join(', ') : '(no hosts)',
        t.needs.length > 0 ? t.needs.join(', ') : '-',
        t.implemented ? t.description : `not implemented yet: ${t.description}`,
      ]),
      { width, indent: '  ' },
    ),
  ];
  const later = runTimeValues(plan);
  if (later.length > 0)
    lines.push(
      '',
      'Decided at run time:',
      ...fitTable(
        [
          { header: 'VALUE', overflow: 'wrap', minWidth: 12 },
          { header: 'FROM', overflow: 'wrap' },
          { header: 'READ BY', overflow: 'wrap' },
        ],
        later.map((v) => [
          v.secret ? `${v.name} (secret)` : v.name,
          v.from.join(', ') || '(the run)',
          briefly(v.readBy),
        ]),
        { width, indent: '  ' },
      ),
    );
  if (options.more) lines.push('', ...paragraph(options.more));
  return lines.join('\n');
}
