import { describe, expect, it } from 'vitest';
import {
  buildsCompatible,
  isHostProcessPod,
  standInDigest,
  unpackFor,
  windowsContainerOutcome,
} from '../../fixtures/lab/state/image-compat.js';

// containerd v2.3.4's Windows platform rules (containerd/platforms v1.0.0-rc.4, the version its
// go.mod requires) and the kubelet's image events, as the lab models them
// (fixtures/lab/state/image-compat.ts cites the sources).
describe("containerd's Windows build compatibility", () => {
  it.each([
    // host, image, compatible (containerd/platforms v1.0.0-rc.4 checkWindowsHostAndContainerCompat;
    // the cases of its platform_windows_compat_test.go where it has them)
    ['10.0.17763', '10.0.17763', true],
    ['10.0.17763', '10.0.20348', false],
    ['10.0.20348', '10.0.17763', false],
    ['10.0.20348', '10.0.20348', true],
    // A 2025 host runs ltsc2022 images; a 2022 host does not run ltsc2025 ones.
    ['10.0.26100', '10.0.20348', true],
    ['10.0.20348', '10.0.26100', false],
    ['10.0.26100', '10.0.26100', true],
    // Hosts between the LTSC releases (Windows 11 22H2 22621, Server 23H2 25398).
    ['10.0.22621', '10.0.20348', true],
    ['10.0.25398', '10.0.17763', false],
    ['10.0.20348', '10.0.22621', false],
    ['10.0.26100', '10.0.22621', true],
    // A host past 26100: the newest LTSC strictly below it, 26100, is its floor under rc.4.
    ['10.0.26200', '10.0.20348', false],
    ['10.0.26200', '10.0.26100', true],
    ['10.0.26200', '10.0.26200', true],
    ['10.0.20348.2762', '10.0.20348.1', true],
    ['6.3.9600', '10.0.17763', false],
  ])('host %s, image %s: %s', (host, image, compatible) => {
    expect(buildsCompatible(host, image)).toBe(compatible);
  });

  it('unpacks a Server Core image only on a host of a compatible build, unless the platform has no OS version', () => {
    const ltsc2022 = 'mcr.microsoft.com/windows/servercore:ltsc2022';
    expect(unpackFor(ltsc2022, '10.0.20348')).toEqual({ ok: true, build: '10.0.20348', known: true });
    expect(unpackFor(ltsc2022, '10.0.17763')).toEqual({
      ok: false,
      error: `no match for platform in manifest ${standInDigest(ltsc2022)}: not found`,
    });
    // ctr --platform windows/amd64: a platform without OS version matches any build.
    expect(unpackFor(ltsc2022, '10.0.17763', { anyBuild: true })).toEqual({
      ok: true,
      build: '10.0.20348',
      known: true,
    });
    // A known image without os.version (HostProcess images) unpacks anywhere; an unknown one is unknown.
    expect(
      unpackFor('sigwindowstools/flannel:v0.21.5-hostprocess', '10.0.17763', {
        extraRefs: ['docker.io/sigwindowstools/flannel:v0.21.5-hostprocess'],
      }),
    ).toEqual({ ok: true, known: true });
    expect(unpackFor('example.com/app:1', '10.0.17763')).toEqual({ ok: true, known: false });
  });
});

describe("the kubelet's container outcome on a Windows node", () => {
  const pod = { name: 'web-abc', namespace: 'default', uid: 'u1' };
  const container = { name: 'web', image: 'mcr.microsoft.com/windows/servercore:ltsc2022' };

  it('reports an image already in the runtime as already present on machine', () => {
    const outcome = windowsContainerOutcome({
      container,
      pod,
      hostProcess: false,
      nodeBuild: '10.0.20348',
      nodeImages: [{ ref: container.image, build: '10.0.20348' }],
    });
    expect(outcome.running).toBe(true);
    expect(outcome.events).toEqual([
      {
        type: 'Normal',
        reason: 'Pulled',
        message: 'Container image "mcr.microsoft.com/windows/servercore:ltsc2022" already present on machine',
      },
    ]);
  });

  it('pulls a missing image of a compatible build, and fails to pull one of another build (ImagePullBackOff)', () => {
    const pulled = windowsContainerOutcome({
      container,
      pod,
      hostProcess: false,
      nodeBuild: '10.0.20348',
      nodeImages: [],
    });
    expect(pulled.running).toBe(true);
    expect(pulled.events.map((e) => e.reason)).toEqual(['Pulling', 'Pulled']);
    expect(pulled.events[1]!.message).toMatch(
      /^Successfully pulled image "mcr\.microsoft\.com\/windows\/servercore:ltsc2022" in /,
    );

    const refused = windowsContainerOutcome({
      container,
      pod,
      hostProcess: false,
      nodeBuild: '10.0.17763',
      nodeImages: [],
    });
    expect(refused.running).toBe(false);
    expect(refused.imageMissing).toBe(true);
    expect(refused.state).toEqual({
      waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${container.image}"` },
    });
    expect(refused.events.map((e) => [e.type, e.reason])).toEqual([
      ['Normal', 'Pulling'],
      ['Warning', 'Failed'],
      ['Warning', 'Failed'],
      ['Normal', 'BackOff'],
      ['Warning', 'Failed'],
    ]);
    expect(refused.events[1]!.message).toBe(
      `Failed to pull image "${container.image}": rpc error: code = NotFound desc = get image config descriptor: no match for platform in manifest ${standInDigest(container.image)}: not found`,
    );
    expect(refused.events[2]!.message).toBe('Error: ErrImagePull');
  });

  it('does not start a process-isolated container whose image was unpacked for another build', () => {
    const outcome = windowsContainerOutcome({
      container,
      pod,
      hostProcess: false,
      nodeBuild: '10.0.17763',
      nodeImages: [{ ref: container.image, build: '10.0.20348' }],
    });
    expect(outcome.running).toBe(false);
    expect(outcome.imageMissing).toBe(false);
    expect(outcome.state).toMatchObject({ waiting: { reason: 'CrashLoopBackOff' } });
    expect(outcome.lastState).toMatchObject({ terminated: { reason: 'StartError', exitCode: 128 } });
    const failed = outcome.events.find((e) => e.reason === 'Failed')!;
    expect(failed.message).toMatch(
      /^Error: failed to create containerd task: failed to create shim task: hcs::CreateComputeSystem [0-9a-f]{64}: The container operating system does not match the host operating system\.: unknown$/,
    );
  });

  it('runs a HostProcess container whatever the build', () => {
    const outcome = windowsContainerOutcome({
      container,
      pod,
      hostProcess: true,
      nodeBuild: '10.0.17763',
      nodeImages: [{ ref: container.image, build: '10.0.20348' }],
    });
    expect(outcome.running).toBe(true);
    expect(isHostProcessPod({ securityContext: { windowsOptions: { hostProcess: true } } })).toBe(true);
    expect(
      isHostProcessPod({
        containers: [{ securityContext: { windowsOptions: { hostProcess: true } } }, { name: 'x' }],
      }),
    ).toBe(false);
  });
});
