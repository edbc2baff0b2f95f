/**
 * Runs the SSH floors alone on a fresh lab and prints JSON:
 *   node dist/scripts/bench/ssh-floors-main.js [--hosts 10] [--tasks 50] [--no-ansible]
 * The lead's `npm run bench` calls the functions in ssh-floors.ts instead.
 */
import { startLab } from '../lab/lab.js';
import { ansibleBench, execChannelFloor, persistentShellFloor, sshTransportBench } from './ssh-floors.js';

function arg(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

const hostsCount = arg('hosts', 10);
const tasks = arg('tasks', 50);
const lab = await startLab({ count: hostsCount });
try {
  const options = {
    hosts: lab.hosts,
    tasks,
    knownHostsPath: lab.knownHostsPath,
    privateKeyPath: lab.privateKeyPath,
  };
  const results: unknown[] = [];
  results.push(await execChannelFloor(options));
  results.push(await persistentShellFloor(options));
  results.push(await sshTransportBench(options));
  if (!process.argv.includes('--no-ansible')) {
    const { output, ...ansible } = await ansibleBench({
      inventoryPath: lab.inventoryPath,
      hostsCount,
      tasks,
    });
    results.push(ansible);
    if (ansible.exitCode !== 0) process.stderr.write(output);
  }
  process.stdout.write(`${JSON.stringify({ lab: lab.mode, hosts: hostsCount, tasks, results }, null, 2)}\n`);
} finally {
  await lab.stop();
}
