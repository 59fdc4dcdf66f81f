/**
 * Writing a word so that a POSIX shell reads it back unchanged, for the
 * commands the CLI suggests (`more: errand runs list …`).
 */

/** Words a shell reads as they are: no quoting needed. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `word` as is when a shell reads it unchanged, else in single quotes (a `'` becomes `'\''`). */
function shellQuote(word: string): string {
  if (PLAIN_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** `words` as one command line, each quoted as {@link shellQuote} does. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
