import { stringify } from 'yaml';

/**
 * A document cloud-init reads (user-data, meta-data, network-config), in YAML that PyYAML reads
 * back as written. cloud-init loads them with PyYAML, which follows YAML 1.1 (PyYAML 6.0,
 * Debian's python3-yaml 6.0-3, yaml/resolver.py lines 170-192: `int` includes base 60,
 * `[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+`; `bool` includes yes/no/on/off), while the `yaml` package
 * writes YAML 1.2 and leaves such strings unquoted. A guest MAC such as `52:54:00:33:01:29` then
 * reached cloud-init as the integer 41135158889 and network-config v2 failed (`'int' object has
 * no attribute 'lower'`): the guest booted without a network (about one guest in 75: each random
 * octet is base-60-like with probability 60/256). Written as YAML 1.1, every such string is quoted.
 */
export function cloudInitYaml(document: unknown): string {
  return stringify(document, { version: '1.1' });
}
