import { type ChildProcess, spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { execa } from 'execa';

/** A libvirtd the tests can use: one already running (left alone), or one they started. */
export interface TestLibvirtd {
  uri: string;
  /** True when the tests started virtlogd/libvirtd (and stop them). */
  started: boolean;
  stop(): Promise<void>;
}

export const LIBVIRT_URI = 'qemu:///system';

const answers = async () =>
  (await execa('virsh', ['-c', LIBVIRT_URI, 'version'], { reject: false })).exitCode === 0;

/** Waits for a child to exit after SIGTERM (SIGKILL after 10 s). */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Uses the running libvirtd, or starts virtlogd and libvirtd as children (these machines have no
 * systemd: RESEARCH.md) and stops exactly those on stop(). /dev/kvm at 0600 makes every libvirt
 * call take ~4 s here (libvirt probes KVM as its unprivileged user), so for the tests' run it
 * gets group kvm and 0660, and its old owner and mode back at the end.
 */
export async function ensureLibvirtd(): Promise<TestLibvirtd> {
  const kvm = await stat('/dev/kvm').catch(() => undefined);
  const restoreKvm = async () => {
    if (!kvm) return;
    await execa('chown', [`${kvm.uid}:${kvm.gid}`, '/dev/kvm'], { reject: false });
    await execa('chmod', [(kvm.mode & 0o777).toString(8), '/dev/kvm'], { reject: false });
  };
  if (kvm) {
    await execa('chgrp', ['kvm', '/dev/kvm'], { reject: false });
    await execa('chmod', ['660', '/dev/kvm'], { reject: false });
  }
  if (await answers()) return { uri: LIBVIRT_URI, started: false, stop: restoreKvm };

  const children: ChildProcess[] = [];
  const start = (command: string) => {
    const child = spawn(command, [], { stdio: ['ignore', 'ignore', 'ignore'], detached: false });
    children.push(child);
    return child;
  };
  start('virtlogd');
  const libvirtd = start('libvirtd');
  const stop = async () => {
    for (const child of children.reverse()) await stopChild(child);
    await restoreKvm();
  };
  for (let attempt = 0; attempt < 150 && !(await answers()); attempt++) {
    if (libvirtd.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (!(await answers())) {
    await stop();
    throw new Error(`libvirtd did not answer at ${LIBVIRT_URI}`);
  }
  return { uri: LIBVIRT_URI, started: true, stop };
}

/** A virsh command against the test libvirtd; resolves with stdout (throws when it fails). */
export async function virsh(...args: string[]): Promise<string> {
  return (await execa('virsh', ['-q', '-c', LIBVIRT_URI, ...args])).stdout;
}
