/**
 * The one place kubemix quotes values for the programs that interpret them: POSIX shells
 * (`shQuote`), PowerShell (`psQuote`), Windows process command lines (`quoteWindowsArg`) and XML
 * documents (`xmlEscape`).
 * Depends on nothing, so every layer (transports, modules, plan, templates, fixtures) imports it
 * without importing another layer.
 */
export { shQuote, shQuoteArgument } from './posix.js';
export { psQuote } from './powershell.js';
export { quoteWindowsArg } from './windows-argv.js';
export { xmlEscape } from './xml.js';
