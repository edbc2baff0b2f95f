/**
 * Where two parsed manifests differ in structure: every path of `upstream` must exist in `ours`
 * with the same value, and `ours` must add nothing. Lists whose items all have a unique `name`
 * (containers, env, volumes, ports...) are matched by name, other lists by position; a string that
 * holds JSON (a ConfigMap's `*.json` key) is compared as the JSON it holds, so formatting differs
 * freely but no field does.
 */

/** One difference, at a path such as `spec.template.spec.containers[name=kube-flannel].args[3]`. */
export interface StructureDifference {
  path: string;
  /** `missing`: upstream has it, ours does not; `added`: the reverse; `changed`: both, other values. */
  kind: 'missing' | 'added' | 'changed';
  upstream?: unknown;
  ours?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `a.b`, or `a["b.c"]` for a key that is not a plain identifier. */
function join(path: string, key: string): string {
  if (/^[A-Za-z_][\w-]*$/.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${JSON.stringify(key)}]`;
}

/** The items of a list keyed by their unique names, or undefined when it is not such a list. */
function byName(list: unknown[]): Map<string, unknown> | undefined {
  const names = list.map((item) =>
    isRecord(item) && typeof item['name'] === 'string' ? item['name'] : undefined,
  );
  if (names.some((n) => n === undefined) || new Set(names).size !== names.length) return undefined;
  return new Map(list.map((item, i) => [names[i]!, item]));
}

/** The JSON a string holds when `key` names a JSON document, else the string itself. */
function asJson(key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !key.endsWith('.json')) return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** Every difference between `upstream` and `ours`, paths prefixed with `path`. */
export function structureDiff(upstream: unknown, ours: unknown, path = ''): StructureDifference[] {
  if (isRecord(upstream) && isRecord(ours)) {
    const out: StructureDifference[] = [];
    for (const [key, value] of Object.entries(upstream)) {
      const at = join(path, key);
      if (!(key in ours)) out.push({ path: at, kind: 'missing', upstream: value });
      else out.push(...structureDiff(asJson(key, value), asJson(key, ours[key]), at));
    }
    for (const [key, value] of Object.entries(ours))
      if (!(key in upstream)) out.push({ path: join(path, key), kind: 'added', ours: value });
    return out;
  }
  if (Array.isArray(upstream) && Array.isArray(ours)) {
    const [theirs, mine] = [byName(upstream), byName(ours)];
    const out: StructureDifference[] = [];
    if (theirs && mine && (theirs.size > 0 || mine.size > 0)) {
      for (const [name, item] of theirs) {
        const at = `${path}[name=${name}]`;
        if (!mine.has(name)) out.push({ path: at, kind: 'missing', upstream: item });
        else out.push(...structureDiff(item, mine.get(name), at));
      }
      for (const [name, item] of mine)
        if (!theirs.has(name)) out.push({ path: `${path}[name=${name}]`, kind: 'added', ours: item });
      return out;
    }
    for (let i = 0; i < Math.max(upstream.length, ours.length); i++) {
      const at = `${path}[${i}]`;
      if (i >= ours.length) out.push({ path: at, kind: 'missing', upstream: upstream[i] });
      else if (i >= upstream.length) out.push({ path: at, kind: 'added', ours: ours[i] });
      else out.push(...structureDiff(upstream[i], ours[i], at));
    }
    return out;
  }
  return Object.is(upstream, ours) ? [] : [{ path, kind: 'changed', upstream, ours }];
}

/** One line per difference, for a failure message. */
export function formatDifferences(differences: StructureDifference[]): string {
  return differences
    .map((d) =>
      d.kind === 'missing'
        ? `${d.path}: upstream has ${JSON.stringify(d.upstream)}, ours has nothing`
        : d.kind === 'added'
          ? `${d.path}: ours adds ${JSON.stringify(d.ours)}`
          : `${d.path}: upstream ${JSON.stringify(d.upstream)}, ours ${JSON.stringify(d.ours)}`,
    )
    .join('\n');
}
