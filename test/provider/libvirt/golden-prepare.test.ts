import { describe, expect, it } from 'vitest';
import { findModule } from '../../../src/modules/registry.js';
import { buildPlan, formatPlan } from '../../../src/plan/index.js';
import { cachedImage } from '../../../src/provider/libvirt/image.js';
import { goldenImage } from '../../../src/provider/libvirt/windows/golden-cache.js';
import type { ClusterSpecInput } from '../../../src/spec/schema.js';
import { validateSpecInput } from '../../../src/spec/validate.js';
import { renderValue } from '../../../src/template/render.js';
import type { Plan, PlanStep } from '../../../src/types/plan.js';
import { loadVersions } from '../../../src/versions/versions.js';

// prepare-provider's part of the golden image: the Windows install media are fetched only where
// the hypervisor's pool lacks the golden volume (libvirt_images decides on the hypervisor), and
// preflight is told what making the golden volume takes. The spec is validated as `up` does.

const WINDOWS_ISO = { source: 'https://isos.example/ws2022.iso', sha256: 'a'.repeat(64) };
const VIRTIO_ISO = { source: 'https://isos.example/virtio-win.iso', sha256: 'b'.repeat(64) };
const golden = goldenImage({
  windowsIso: cachedImage(WINDOWS_ISO, 'iso'),
  virtioIso: cachedImage(VIRTIO_ISO, 'iso'),
  version: '2022',
  image: { name: 'Windows Server 2022 SERVERDATACENTERCORE' },
}).volume;

function plan(goldenImageOn: boolean): Plan {
  const input: ClusterSpecInput = {
    name: 'lab',
    provider: {
      type: 'libvirt',
      images: { windows: WINDOWS_ISO, virtio: VIRTIO_ISO },
      windows: { goldenImage: goldenImageOn },
    },
    nodes: {
      controlPlane: { count: 1 },
      workers: [{ name: 'win', os: 'windows', count: 2, diskGiB: 50 }],
    },
  };
  const spec = validateSpecInput(input, { file: 'spec.yaml' });
  return buildPlan({ spec, versions: loadVersions(), clusterDir: '/clusters/lab' });
}

const prepare = (p: Plan) => p.tasks.find((t) => t.name === 'prepare-provider')!;
const step = (p: Plan, module: string) => prepare(p).steps.find((s) => s.module === module)!;
type ImageArg = { source: string; onlyWithout?: string };
/** The images a step is given for hypervisor-01 (preflight gets them inside its part). */
function images(s: PlanStep): ImageArg[] {
  const part = (s.args['hypervisors'] as Record<string, ImageArg[] | { images: ImageArg[] }>)[
    'hypervisor-01'
  ]!;
  return Array.isArray(part) ? part : part.images;
}

describe('prepare-provider with windows.goldenImage', () => {
  it('marks the Windows and virtio-win ISOs (only the install uses them) with the golden volume, not the Linux image', () => {
    const p = plan(true);
    const hv = p.hosts.find((h) => h.name === 'hypervisor-01')!;
    const marks = (s: PlanStep) => Object.fromEntries(images(s).map((i) => [i.source, i.onlyWithout]));
    for (const s of [step(p, 'libvirt_images'), step(p, 'libvirt_preflight')]) {
      expect(marks(s)).toEqual({
        [images(s)[0]!.source]: undefined,
        [WINDOWS_ISO.source]: golden,
        [VIRTIO_ISO.source]: golden,
      });
      // Accepted by the module as rendered on the hypervisor.
      expect(() => findModule(s.module)!.parseArgs(renderValue(s.args, { ...hv.vars }))).not.toThrow();
    }
    expect(images(step(p, 'libvirt_images'))[0]!.source).toMatch(/\.qcow2$/);
    // Without the golden image every image is fetched, whatever the pool holds.
    expect(images(step(plan(false), 'libvirt_images')).every((i) => i.onlyWithout === undefined)).toBe(true);
  });

  it("tells preflight the golden volume and its first guest's installed disk size (nothing without the golden image)", () => {
    const part = (p: Plan) =>
      (step(p, 'libvirt_preflight').args['hypervisors'] as Record<string, object>)['hypervisor-01'];
    expect(part(plan(true))).toMatchObject({ golden: { volume: golden, installDiskGiB: 50 } });
    expect(part(plan(false))).not.toHaveProperty('golden');
  });

  it('says in the plan that the ISOs are fetched only where the golden volume is missing', () => {
    const line =
      '- cache the base images in the storage pool (downloaded and verified once per hypervisor; the Windows install media only where the pool has no golden volume): libvirt_images';
    expect(formatPlan(plan(true))).toContain(line);
    expect(formatPlan(plan(false))).not.toContain('golden volume');
  });
});
