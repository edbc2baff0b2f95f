/**
 * What of a secret value the redactor must recognise when it turns up again, whole or in
 * pieces. A no_log step's output is rarely used as it is: a template takes one line of it (the
 * certificate key `kubeadm init phase upload-certs` prints on its last line) or one word (the
 * token inside `kubeadm token create --print-join-command`) and splices it into another command.
 * So a secret value is known by its lines and by the words in them that look like credentials.
 */

/** A line with no whitespace shorter than this is not a secret: it would match everywhere. */
export const MIN_SECRET_LENGTH = 6;
/** A word inside a longer line counts as a credential from this length on (with letters and digits). */
export const MIN_CREDENTIAL_WORD_LENGTH = 8;

/**
 * Keys of a registered result that describe the step rather than hold its output: `cmd` (the
 * command as rendered), `msg` ("non-zero return code"...), skip reasons. Treating them as secrets
 * would blank those words in every later message.
 */
const DESCRIPTIVE_KEYS = new Set([
  'cmd',
  'msg',
  'skip_reason',
  'false_condition',
  'ansible_loop_var',
  'changed',
  'failed',
  'skipped',
  'rc',
  'attempts',
]);

// Characters that separate words in command lines, YAML, JSON and key=value output.
const WORD_SEPARATORS = /[\s"'`,;=(){}[\]<>|]+/;

/**
 * Public values that look like credentials. A kubeadm CA certificate hash (`sha256:<64 hex>`) is
 * a hash of the CA's public key (the Subject Public Key Info, as in RFC 7469 public key pins;
 * https://kubernetes.io/docs/reference/setup-tools/kubeadm/kubeadm-join/, "--discovery-token-ca-cert-hash"):
 * it is printed in every join command, is needed to read one, and gives no access.
 */
const PUBLIC_VALUES = [/^sha256:[0-9a-f]{64}$/i];

const isPublic = (word: string) => PUBLIC_VALUES.some((pattern) => pattern.test(word));

/** A word that looks like a credential: long enough, letters and digits, not a flag, not public. */
function looksLikeCredential(word: string): boolean {
  return (
    word.length >= MIN_CREDENTIAL_WORD_LENGTH &&
    !word.startsWith('-') &&
    /[A-Za-z]/.test(word) &&
    /[0-9]/.test(word) &&
    !isPublic(word)
  );
}

/**
 * The fragments of one text to treat as secrets: every line that is a single word (the whole
 * value, a key, a password); every credential-like word of longer lines (the token inside a join
 * command, a base64 blob in YAML); and a longer line as a whole when it has no such word (a
 * passphrase of plain words). Public values (the CA hash) are never fragments, so a join command
 * stays readable with only its secrets replaced.
 */
export function secretFragmentsOfText(text: string): string[] {
  const found = new Set<string>();
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') continue;
    const singleWord = !/\s/.test(line);
    if (singleWord && line.length >= MIN_SECRET_LENGTH && !isPublic(line)) found.add(line);
    const credentials = line.split(WORD_SEPARATORS).filter(looksLikeCredential);
    for (const word of credentials) found.add(word);
    if (!singleWord && credentials.length === 0 && line.length >= MIN_CREDENTIAL_WORD_LENGTH) found.add(line);
  }
  return [...found];
}

/**
 * The fragments of a registered value: a string, or a result (stdout, stdout_lines, stderr, loop
 * `results`, facts...) walked recursively, leaving out the keys that describe the step
 * ({@link DESCRIPTIVE_KEYS}).
 */
export function secretFragments(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (item: unknown) => {
    if (typeof item === 'string') for (const fragment of secretFragmentsOfText(item)) found.add(fragment);
    else if (Array.isArray(item)) for (const inner of item) walk(inner);
    else if (typeof item === 'object' && item !== null)
      for (const [key, inner] of Object.entries(item)) if (!DESCRIPTIVE_KEYS.has(key)) walk(inner);
  };
  walk(value);
  return [...found];
}
