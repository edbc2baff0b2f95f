/** A token of a free-form argument string, with its place in the original text. */
interface Token {
  text: string;
  start: number;
  end: number;
}

/** Splits on whitespace outside quotes and outside `{{ }}` / `{% %}`. */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    while (i < input.length && /\s/.test(input[i]!)) i++;
    if (i >= input.length) break;
    const start = i;
    let quote: string | undefined;
    let braces = 0;
    while (i < input.length) {
      const ch = input[i]!;
      const two = input.slice(i, i + 2);
      if (quote) {
        if (ch === '\\' && quote === '"') i++;
        else if (ch === quote) quote = undefined;
      } else if (two === '{{' || two === '{%') {
        braces++;
        i++;
      } else if ((two === '}}' || two === '%}') && braces > 0) {
        braces--;
        i++;
      } else if (braces === 0 && (ch === '"' || ch === "'")) quote = ch;
      else if (braces === 0 && /\s/.test(ch)) break;
      i++;
    }
    tokens.push({ text: input.slice(start, i), start, end: i });
  }
  return tokens;
}

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value.at(-1) === value[0])
    return value.slice(1, -1);
  return value;
}

const KV = /^([A-Za-z_]\w*)=([\s\S]*)$/;

/**
 * Parses `key=value key2="quoted value"` (Ansible's free-form module arguments). With
 * `rawKeys`, only those keys are taken out and the rest of the text (kept exactly as written)
 * becomes `_raw_params`, as for command/shell/raw/script.
 */
export function parseFreeForm(
  input: string,
  rawKeys?: readonly string[],
): { args: Record<string, unknown>; bare: string[] } {
  const args: Record<string, unknown> = {};
  const bare: string[] = [];
  const tokens = tokenize(input);
  if (rawKeys) {
    let raw = '';
    let last = 0;
    for (const token of tokens) {
      const kv = KV.exec(token.text);
      if (kv && rawKeys.includes(kv[1]!)) {
        args[kv[1]!] = unquote(kv[2]!);
        raw += input.slice(last, token.start);
        last = token.end;
      }
    }
    raw = (raw + input.slice(last)).replace(/\s+/g, (ws, offset: number, all: string) =>
      offset === 0 || offset + ws.length === all.length ? '' : ws,
    );
    if (raw.trim() !== '') args['_raw_params'] = raw.trim();
    return { args, bare };
  }
  for (const token of tokens) {
    const kv = KV.exec(token.text);
    if (kv) args[kv[1]!] = unquote(kv[2]!);
    else bare.push(token.text);
  }
  return { args, bare };
}
