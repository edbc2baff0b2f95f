import { randomInt } from 'node:crypto';

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
// No quote, backslash, `$`, `%`, `!`, `&`, `<`, `>` or backtick: nothing any shell, cmd.exe or
// XML would treat specially, should the value ever be typed by hand.
const SYMBOLS = '#+-.=@_';
const ALL = UPPER + LOWER + DIGITS + SYMBOLS;

/** Length of generated Administrator passwords. */
export const GENERATED_PASSWORD_LENGTH = 24;

const pick = (alphabet: string): string => alphabet[randomInt(alphabet.length)]!;

/**
 * A fresh random Administrator password (crypto.randomInt, ~140 bits). It meets Windows'
 * "Password must meet complexity requirements" policy, which is on by default on Windows Server
 * (Microsoft Learn, "Password must meet complexity requirements": at least 6 characters, at
 * least three of upper case, lower case, digits and non-alphanumeric characters, and not the
 * account name): every class appears at least once.
 *
 * The caller keeps it in secrets.json only; it is written into the answer file and nowhere else.
 */
export function generateAdministratorPassword(): string {
  const chars = [pick(UPPER), pick(LOWER), pick(DIGITS), pick(SYMBOLS)];
  while (chars.length < GENERATED_PASSWORD_LENGTH) chars.push(pick(ALL));
  // Fisher-Yates, so the guaranteed classes do not sit at fixed positions.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
