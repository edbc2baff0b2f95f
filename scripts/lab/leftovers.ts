import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { labScriptPath } from './lab.js';
import {
  ancestorPids,
  killAll,
  type ProcessInfo,
  processesWithEnv,
  stillRunningAfter,
} from './marked-processes.js';
import { FORMER_TEMP_PREFIXES, TEMP_PREFIX } from './temp-dir.js';

/** Where lab.sh claims lab ids: `<id>/dir` names the lab directory (scripts/lab/lab.sh, REGISTRY). */
export const LAB_REGISTRY = '/run/kubemix-lab';
/** In a per-test-file temp directory: the test file it belongs to. */
export const TEST_FILE_MARKER = '.kmx-test-file';
/** How long a process that was just stopped may take to exit before it counts as left behind. */
const EXIT_GRACE_MS = 5000;

/** Something a test, lab or benchmark left behind. */
export interface Leftover {
  kind: 'path' | 'process' | 'lab' | 'netns' | 'link';
  /** The path, `PID command`, lab directory, namespace or link name. */
  what: string;
  /** The test file that made it, when known. */
  testFile?: string;
  /** What the check did about it (`removed`, `killed`, `stopped`), when it cleaned it up. */
  cleaned?: string;
}

/** What of ours existed before a run: anything not in it afterwards was made by the run. */
export interface HygieneSnapshot {
  tmpEntries: string[];
  netns: string[];
  links: string[];
  labIds: string[];
}

/** Lab ids claimed in {@link LAB_REGISTRY}, with the directory of the lab that holds each. */
export function labClaims(): { id: string; dir: string }[] {
  if (!existsSync(LAB_REGISTRY)) return [];
  return readdirSync(LAB_REGISTRY).map((id) => {
    let dir = '';
    try {
      dir = readFileSync(join(LAB_REGISTRY, id, 'dir'), 'utf8').trim();
    } catch {
      // A claim being made or removed right now.
    }
    return { id, dir };
  });
}

/** Network namespaces whose name starts with `kmx` (lab.sh: `kmx-lab-<id>-<host>`). */
export function kmxNetns(): string[] {
  const text = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '';
  return text
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith('kmx'));
}

/** Links of this namespace whose name starts with `kmx` (lab.sh: bridge `kmxbr<id>`, veth `kmx<id>h<n>`). */
export function kmxLinks(): string[] {
  const text = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout ?? '';
  return text
    .split('\n')
    .map((line) => /^\d+:\s+([^:@\s]+)/.exec(line)?.[1] ?? '')
    .filter((name) => name.startsWith('kmx'));
}

/** Entries of `dir` named with one of our temp prefixes. */
export function ourTempEntries(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const prefixes = [TEMP_PREFIX, ...FORMER_TEMP_PREFIXES];
  return readdirSync(dir).filter((name) => prefixes.some((p) => name.startsWith(p)));
}

/** Records what of ours exists now, in `tmp` (this machine's /tmp) and in the kernel. */
export function takeSnapshot(tmp: string): HygieneSnapshot {
  return {
    tmpEntries: ourTempEntries(tmp),
    netns: kmxNetns(),
    links: kmxLinks(),
    labIds: labClaims().map((c) => c.id),
  };
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}${sep}`);

function testFileOf(fileDir: string): string | undefined {
  try {
    return readFileSync(join(fileDir, TEST_FILE_MARKER), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Stops every lab whose directory lies under `dir` (lab.sh stop kills its hosts and frees its namespaces). */
function stopLabsUnder(dir: string, testFile?: string): Leftover[] {
  const found: Leftover[] = [];
  for (const claim of labClaims()) {
    if (!claim.dir || !inside(claim.dir, dir)) continue;
    const stopped = spawnSync('bash', [labScriptPath(), 'stop', claim.dir], { encoding: 'utf8' });
    found.push({
      kind: 'lab',
      what: `${claim.dir} (lab id ${claim.id}: namespaces kmx-lab-${claim.id}-*, bridge kmxbr${claim.id})`,
      ...(testFile ? { testFile } : {}),
      cleaned: stopped.status === 0 ? 'stopped' : `lab.sh stop failed: ${stopped.stderr.trim()}`,
    });
  }
  return found;
}

function processLeftovers(processes: ProcessInfo[], testFile?: string): Leftover[] {
  killAll(processes);
  return processes.map((p) => ({
    kind: 'process',
    what: `${p.pid} ${p.command.slice(0, 200)}`,
    ...(testFile ? { testFile } : {}),
    cleaned: 'killed',
  }));
}

function removeEntries(dir: string, names: string[], testFile?: string): Leftover[] {
  return names.map((name) => {
    rmSync(join(dir, name), { recursive: true, force: true });
    return { kind: 'path', what: join(dir, name), ...(testFile ? { testFile } : {}), cleaned: 'removed' };
  });
}

/** The `KMX_TEST_FILE` value of one test file in one run: the same file may run in two runs at once. */
export const testFileMarker = (runId: string, testFile: string) => `${runId}:${testFile}`;

/**
 * What one test file left behind, then cleaned up: labs whose directory is in the file's temp
 * directory (stopped), processes started with `KMX_TEST_FILE=<marker>` (killed), and anything
 * in the file's temp directory (removed). Exact: nothing here can belong to another run or file.
 */
export async function testFileLeftovers(options: {
  fileDir: string;
  testFile: string;
  marker: string;
}): Promise<Leftover[]> {
  const { fileDir, testFile, marker } = options;
  const found = stopLabsUnder(fileDir, testFile);
  const processes = await stillRunningAfter(() => processesWithEnv('KMX_TEST_FILE', marker), EXIT_GRACE_MS);
  found.push(...processLeftovers(processes, testFile));
  const entries = existsSync(fileDir) ? readdirSync(fileDir).filter((n) => n !== TEST_FILE_MARKER) : [];
  found.push(...removeEntries(fileDir, entries, testFile));
  return found;
}

/**
 * What a whole run left behind. Exact, and cleaned up: anything in the run's directory `runDir`
 * (named after the test file whose directory it is in), labs under it, processes started with
 * `KMX_TEST_RUN=<runId>` other than vitest's own. Compared with `snapshot` and only reported
 * (they may belong to another run on this machine): new entries with our prefixes in `tmp`, new
 * `kmx*` network namespaces and links, new lab claims, leaving out labs that live in another
 * run's directory.
 */
export async function runLeftovers(options: {
  snapshot: HygieneSnapshot;
  tmp: string;
  runDir: string;
  runId: string;
  /** Processes of the test runner itself (its workers) that carry the marker and are not leftovers. */
  isRunner?: (p: ProcessInfo) => boolean;
}): Promise<Leftover[]> {
  const { snapshot, tmp, runDir, runId } = options;
  const found = stopLabsUnder(runDir);
  const ancestors = ancestorPids();
  const ours = () =>
    processesWithEnv('KMX_TEST_RUN', runId).filter(
      (p) => !ancestors.has(p.pid) && !(options.isRunner?.(p) ?? false),
    );
  found.push(...processLeftovers(await stillRunningAfter(ours, EXIT_GRACE_MS)));
  if (existsSync(runDir)) {
    for (const name of readdirSync(runDir)) {
      const path = join(runDir, name);
      const testFile = testFileOf(path);
      const entries = testFile ? readdirSync(path).filter((n) => n !== TEST_FILE_MARKER) : [name];
      found.push(...removeEntries(testFile ? path : runDir, entries, testFile));
    }
    rmSync(runDir, { recursive: true, force: true });
  }
  const runDirName = relative(tmp, runDir);
  for (const name of ourTempEntries(tmp))
    if (!snapshot.tmpEntries.includes(name) && name !== runDirName)
      found.push({ kind: 'path', what: join(tmp, name) });
  // A lab of another test run lives under that run's own directory: its id is not ours to report.
  const claims = labClaims();
  const otherRuns = new Set(
    claims.filter((c) => /\/kmx-run-[^/]+\//.test(c.dir) && !inside(c.dir, runDir)).map((c) => c.id),
  );
  const mine = (name: string) => !otherRuns.has(labIdOf(name) ?? '');
  for (const name of kmxNetns())
    if (!snapshot.netns.includes(name) && mine(name)) found.push({ kind: 'netns', what: name });
  for (const name of kmxLinks())
    if (!snapshot.links.includes(name) && mine(name)) found.push({ kind: 'link', what: name });
  for (const claim of claims)
    if (!snapshot.labIds.includes(claim.id) && !otherRuns.has(claim.id))
      found.push({ kind: 'lab', what: `${join(LAB_REGISTRY, claim.id)} (claimed for ${claim.dir || '?'})` });
  return found;
}

/** The lab id in a lab.sh name: namespace `kmx-lab-<id>-<host>`, bridge `kmxbr<id>`, veth `kmx<id>h<n>`. */
function labIdOf(name: string): string | undefined {
  return /^kmx-lab-(\d+)-|^kmxbr(\d+)$|^kmx(\d+)h\d+$/.exec(name)?.slice(1).find(Boolean);
}

/** One line per leftover, grouped by the test file that made it. */
export function formatLeftovers(found: Leftover[]): string {
  const byFile = new Map<string, Leftover[]>();
  for (const item of found) {
    const key = item.testFile ?? '';
    byFile.set(key, [...(byFile.get(key) ?? []), item]);
  }
  const lines: string[] = [];
  for (const [file, items] of byFile) {
    lines.push(
      file
        ? `${file} left behind:`
        : "left behind (maker unknown: found outside any test file's own TMPDIR):",
    );
    for (const item of items)
      lines.push(`  ${item.kind} ${item.what}${item.cleaned ? `  [${item.cleaned}]` : ''}`);
  }
  return lines.join('\n');
}
