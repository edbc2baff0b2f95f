/**
 * Reproducible random strings for property tests: a small PRNG (mulberry32) over an alphabet
 * weighted towards what shells and PowerShell treat specially, including every single- and
 * double-quote character PowerShell knows, control characters, NUL and non-ASCII text.
 */
const SPECIAL = [
  ...'\'"`$(){}[]<>|&;*?!#~=%^@,\\/ -+:.',
  '\n',
  '\r',
  '\t',
  '\0',
  '\u0001',
  '\u001b',
  '\u007f',
  '\u2018',
  '\u2019',
  '\u201a',
  '\u201b',
  '\u201c',
  '\u201d',
  '\u201e',
  '\u00a0',
  '\u2013',
  'é',
  '日',
  '😀',
];
const PLAIN = [...'abcXYZ019_'];

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` strings of 0..maxLength characters, the same ones for the same seed. */
export function randomStrings(options: { seed: number; count: number; maxLength: number }): string[] {
  const next = mulberry32(options.seed);
  const pick = (list: readonly string[]) => list[Math.floor(next() * list.length)]!;
  return Array.from({ length: options.count }, () => {
    const length = Math.floor(next() * (options.maxLength + 1));
    let text = '';
    for (let i = 0; i < length; i++) text += next() < 0.6 ? pick(SPECIAL) : pick(PLAIN);
    return text;
  });
}
