import { shQuote } from '../../../quote/index.js';

/**
 * Can KVM run a guest here? First the CPU must offer hardware virtualization (the vmx or svm flag
 * in /proc/cpuinfo: what libvirt's own virt-host-validate checks, "Checking for hardware
 * virtualization"): `/dev/kvm` can exist without it, and then a trivial guest may even run while
 * a real kernel stops with "KVM internal error" (seen on the machines kubemix is tested on). Then
 * it must run something: the probe boots a 512-byte
 * boot sector under `-accel kvm` whose only instruction writes to QEMU's isa-debug-exit port:
 * QEMU then exits with (0x10 << 1) | 1 = 33 at once. Any other ending within the time limit means
 * KVM cannot be used, and guests run under TCG. Bytes: mov al,0x10; out 0xf4,al; hlt; jmp $-1;
 * then zeros and the 0x55AA boot signature.
 */
export const KVM_PROBE_TIMEOUT_SEC = 5;
const EXIT_CODE_OK = 33;

export function kvmProbeScript(): string {
  return [
    `if ! grep -qwE 'vmx|svm' /proc/cpuinfo; then echo ${shQuote('kvm: the CPU offers no hardware virtualization (no vmx or svm flag)')}; exit 0; fi`,
    'if [ ! -c /dev/kvm ] || [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then echo "kvm: /dev/kvm is missing or not usable by $(id -un)"; exit 0; fi',
    'qemu=$(command -v qemu-system-x86_64 || true)',
    'if [ -z "$qemu" ]; then echo "kvm: qemu-system-x86_64 not found"; exit 0; fi',
    // Under kubemix's own temp prefix, removed on exit.
    'd=$(mktemp -d /tmp/kmx-kvm-probe.XXXXXX)',
    `trap 'rm -rf "$d"' EXIT`,
    `{ printf '\\260\\020\\346\\364\\364\\353\\375'; head -c 503 /dev/zero; printf '\\125\\252'; } > "$d/probe.img"`,
    `timeout ${KVM_PROBE_TIMEOUT_SEC} "$qemu" -accel kvm -machine pc -nodefaults -no-user-config -display none -m 16 -device isa-debug-exit,iobase=0xf4,iosize=0x04 -drive format=raw,if=floppy,file="$d/probe.img" >/dev/null 2>"$d/err"`,
    'rc=$?',
    `if [ "$rc" = ${EXIT_CODE_OK} ]; then echo kvm-ok; elif [ "$rc" = 124 ]; then echo ${shQuote(`kvm: a test guest did not run within ${KVM_PROBE_TIMEOUT_SEC} s`)}; else echo "kvm: QEMU exited $rc: $(head -c 300 "$d/err" | tr '\\n' ' ')"; fi`,
  ].join('\n');
}

/** undefined when KVM works, else why not. */
export function kvmProblem(stdout: string): string | undefined {
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return line === 'kvm-ok' ? undefined : line.replace(/^kvm: /, '') || 'the KVM check printed nothing';
}
