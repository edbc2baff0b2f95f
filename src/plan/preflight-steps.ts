import type { PlanStep } from '../types/plan.js';

/**
 * Steps that wait for a host to answer and identify itself. `probe` picks the OS's own command
 * (uname on Linux, PowerShell on Windows), so one step list serves mixed node sets.
 */
export function waitForHostSteps(timeoutSec: number): PlanStep[] {
  return [
    { name: 'wait for connection', module: 'wait_for_connection', args: { timeout: timeoutSec } },
    { name: 'identify host', module: 'probe', args: {} },
  ];
}
