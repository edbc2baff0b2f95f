import { ManifestError } from './errors.js';

/** Flannel's network settings as read from a net-conf.json. */
export interface FlannelNetConf {
  /** Pod network (`Network`). */
  network: string;
  /** Backend type (`Backend.Type`). */
  backend: string;
  /** `Backend.VNI`; undefined when absent (flanneld then uses its platform default). */
  vni: number | undefined;
  /** `Backend.Port`; undefined when absent (flanneld then uses its platform default). */
  port: number | undefined;
  /** The ConfigMap it came from. */
  configMap: string;
}

interface ConfigMapLike {
  kind?: unknown;
  metadata?: { name?: unknown };
  data?: Record<string, unknown>;
}

/**
 * Reads flannel's net-conf.json back from Kubernetes objects (rendered manifests, or the
 * objects a cluster stored): the ConfigMap named `configMapName`, or else the only ConfigMap
 * that has a `net-conf.json` key. Throws a ManifestError when it is missing, ambiguous or not JSON.
 */
export function readFlannelNetConf(objects: readonly unknown[], configMapName?: string): FlannelNetConf {
  const candidates = objects.filter((o): o is ConfigMapLike => {
    const cm = o as ConfigMapLike | null;
    return !!cm && cm.kind === 'ConfigMap' && typeof cm.data?.['net-conf.json'] === 'string';
  });
  const chosen =
    configMapName === undefined ? candidates : candidates.filter((cm) => cm.metadata?.name === configMapName);
  const what =
    configMapName === undefined
      ? 'a ConfigMap with net-conf.json'
      : `ConfigMap ${configMapName} with net-conf.json`;
  if (chosen.length === 0) throw new ManifestError('net-conf.json', `no ${what}`);
  if (chosen.length > 1) {
    const names = chosen.map((cm) => String(cm.metadata?.name)).join(', ');
    throw new ManifestError(
      'net-conf.json',
      `several ConfigMaps hold net-conf.json (${names}): name the one to read`,
    );
  }
  const configMap = String(chosen[0]!.metadata?.name);
  let parsed: unknown;
  try {
    parsed = JSON.parse(chosen[0]!.data!['net-conf.json'] as string);
  } catch (error) {
    throw new ManifestError(`${configMap} net-conf.json`, `not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const conf = parsed as { Network?: unknown; Backend?: { Type?: unknown; VNI?: unknown; Port?: unknown } };
  if (typeof conf.Network !== 'string')
    throw new ManifestError(`${configMap} net-conf.json`, 'Network is missing');
  if (typeof conf.Backend?.Type !== 'string')
    throw new ManifestError(`${configMap} net-conf.json`, 'Backend.Type is missing');
  const optionalNumber = (value: unknown, field: string): number | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'number')
      throw new ManifestError(`${configMap} net-conf.json`, `${field} is not a number`);
    return value;
  };
  return {
    network: conf.Network,
    backend: conf.Backend.Type,
    vni: optionalNumber(conf.Backend.VNI, 'Backend.VNI'),
    port: optionalNumber(conf.Backend.Port, 'Backend.Port'),
    configMap,
  };
}
