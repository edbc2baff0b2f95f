import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { kubemixCli } from '../../scripts/lab/kubemix-cli.js';
import { testTempDirSync } from '../helpers/temp.js';

/** Repository root, from this file's place in test/cli. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The built CLI as users run it (`npm run build` makes it). */
export const cliPath = kubemixCli();

/** Every kubemix command, for the tests that hold each of them to a rule (exit codes, -v). */
export const COMMANDS = [
  'plan',
  'up',
  'down',
  'verify',
  'ci',
  'status',
  'kubeconfig',
  'run',
  'artifacts',
  'versions',
  'schema',
] as const;

/** A fresh KUBEMIX_HOME so tests never share cluster directories. */
export const tempHome = () => testTempDirSync('cli');

/**
 * A mixed short form that plans on any machine: one Windows worker whose ISO is a URL (with a
 * made-up digest), so nothing is read from disk.
 */
export const MIXED_SHORT_FORM = [
  'k8s-libvirt-1-2-1',
  '--windows-workers',
  '1',
  '--windows-iso',
  'https://isos.example/ws2022.iso',
  '--windows-iso-sha256',
  'a'.repeat(64),
];

/** Runs the built CLI the way a user does (CI=true: plain lines). Needs `npm run build` first (npm test does it). */
export function runCli(args: string[], options: { home: string; env?: Record<string, string> }) {
  return execa('node', [cliPath, ...args], {
    cwd: repoRoot,
    reject: false,
    env: { CI: 'true', KUBEMIX_HOME: options.home, ...options.env },
  });
}
