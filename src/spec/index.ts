/**
 * The cluster spec: YAML files and Kubeinit short forms, validated into one ClusterSpec model.
 */
export { cidrsOverlap, type Ipv4Cidr, parseCidr } from './cidr.js';
export { CROSS_FIELD_RULES, checkCrossFieldRules } from './cross-field-rules.js';
export { SPEC_SCHEMA_ID, specJsonSchema } from './json-schema.js';
export { type LoadedSpec, type LoadSpecOptions, loadSpec } from './load.js';
export { parseSpecText } from './parse.js';
export { generatedNodeName } from './rule-helpers.js';
export * from './schema.js';
export {
  isShortForm,
  parseShortForm,
  SHORT_FORM_FLAGS,
  type ShortFormOptions,
  shortFormInput,
} from './short-form.js';
export { specWarnings } from './spec-warnings.js';
export { sortIssues, type ValidateOptions, validateSpecInput } from './validate.js';
