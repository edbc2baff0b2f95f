export { FILTERS, pythonTruthy, shellQuote, TESTS, toBool } from './filters.js';
export {
  evaluateCondition,
  evaluateExpression,
  isTemplate,
  renderString,
  renderValue,
  TemplateRenderError,
} from './render.js';
