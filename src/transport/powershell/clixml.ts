/**
 * PowerShell writes its error stream as CLIXML when stdout/stderr are redirected, e.g.
 * `#< CLIXML\r\n<Objs ...><S S="Error">Oops_x000D__x000A_</S></Objs>`. These helpers turn that
 * back into the plain text a person would have seen.
 */

const MARKER = '#< CLIXML';

/** Decodes the `_xHHHH_` escapes PowerShell uses for characters XML cannot carry as-is. */
export function unescapeClixmlText(text: string): string {
  const entities = text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#x([0-9a-fA-F]+);/g, (_m, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/&#([0-9]+);/g, (_m, d: string) => String.fromCodePoint(Number.parseInt(d, 10)))
    .replace(/&amp;/g, '&');
  // Code units, not code points: a surrogate pair arrives as two escapes and joins back up.
  return entities.replace(/_x([0-9a-fA-F]{4})_/g, (_m, h: string) =>
    String.fromCharCode(Number.parseInt(h, 16)),
  );
}

/** True when a stream holds CLIXML. */
export function isClixml(text: string): boolean {
  return text.trimStart().startsWith(MARKER);
}

/**
 * Returns the plain text of a CLIXML stream: the `<S S="Error">` strings (or the streams named in
 * `streams`), joined. Progress records and other objects are dropped. Non-CLIXML text is returned
 * unchanged.
 */
export function decodeClixml(text: string, streams: string[] = ['Error']): string {
  if (!isClixml(text)) return text;
  const wanted = new Set(streams.map((s) => s.toLowerCase()));
  let out = '';
  const pattern = /<S S="([^"]*)">([\s\S]*?)<\/S>/g;
  for (const match of text.matchAll(pattern)) {
    if (wanted.has((match[1] ?? '').toLowerCase())) out += unescapeClixmlText(match[2] ?? '');
  }
  return out.replace(/\r\n/g, '\n');
}

/** Escapes text the way PowerShell does inside CLIXML strings (used by test servers). */
export function escapeClixmlText(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '&') out += '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else if (code < 0x20 || ch === '_') out += `_x${code.toString(16).toUpperCase().padStart(4, '0')}_`;
    else out += ch;
  }
  return out;
}

/** Builds a CLIXML error stream holding `lines` as error records (used by test servers). */
export function encodeClixmlErrors(lines: string[]): string {
  const records = lines.map((l) => `<S S="Error">${escapeClixmlText(`${l}\r\n`)}</S>`).join('');
  return `${MARKER}\r\n<Objs Version="1.1.0.1" xmlns="http://schemas.microsoft.com/powershell/2004/04">${records}</Objs>`;
}
