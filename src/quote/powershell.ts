/**
 * Every character PowerShell's tokenizer treats as a single quote: `'` and the typographic
 * U+2018, U+2019, U+201A, U+201B. Source: PowerShell/PowerShell at cdd2cfc99d54,
 * src/System.Management.Automation/engine/parser/CharTraits.cs (`SpecialChars.QuoteSingleLeft`,
 * `QuoteSingleRight`, `QuoteSingleBase`, `QuoteReversed`; `CharExtensions.IsSingleQuote`).
 */
const SINGLE_QUOTES = /['\u2018\u2019\u201a\u201b]/g;

/**
 * Quotes a value as a PowerShell verbatim (single-quoted) string literal: nothing inside is
 * expanded (`$x`, `$(...)`, `${...}`, backticks, `;`, `|`, double quotes are text). PowerShell ends
 * such a string at ANY of its five single-quote characters unless another of them follows, and
 * then the pair stands for the second one (PowerShell/PowerShell at 16620338cebf,
 * src/System.Management.Automation/engine/parser/tokenizer.cs, `ScanStringLiteral`), so each of
 * the five is doubled; a copy that doubles only `'` lets `’` end the string early. As an argument
 * the literal is a value, never a parameter name, even when it starts with `-`. Newlines and NUL
 * stay as they are (the tokenizer reads past both inside a string).
 */
export function psQuote(value: string): string {
  return `'${value.replace(SINGLE_QUOTES, (quote) => quote + quote)}'`;
}
