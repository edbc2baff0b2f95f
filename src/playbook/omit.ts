/** Ansible's `omit` placeholder: a module argument rendered to this value is dropped. */
export const OMIT = '__omit_place_holder__kubemix';

/** The rendered arguments without the values that rendered to {@link OMIT}, at any depth of plain objects and lists. */
export function dropOmitted(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== OMIT).map(dropOmitted);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== OMIT)
        .map(([k, v]) => [k, dropOmitted(v)]),
    );
  }
  return value;
}
