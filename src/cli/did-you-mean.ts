/**
 * Edit distance between two words: insertions, deletions, substitutions and swaps of two
 * neighbouring letters each count 1 (optimal string alignment), so `--forsk` is 1 from `--forks`.
 */
export function editDistance(a: string, b: string): number {
  // rows[i][j]: distance between the first i letters of a and the first j of b.
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate a mistyped word most likely meant: the nearest one within a third of the word's
 * length (so a one-letter slip in a five-letter word, never a guess for `-v` among `-h`).
 * Leading dashes do not count. Undefined when nothing is that close.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const bare = (text: string) => text.replace(/^-+/, '').toLowerCase();
  const limit = Math.floor(bare(word).length / 3);
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(bare(word), bare(candidate));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
