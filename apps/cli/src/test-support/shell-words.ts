/**
 * Splitting a command line the way a POSIX shell does for the quoting the
 * CLI and its README use — single quotes, backslash escapes, a backslash
 * ending a line to continue it, whitespace (newlines included) between
 * words — so a test runs a printed or
 * documented command exactly as a user would paste it.
 */

/** The words of `line`. Throws on an unterminated quote. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) throw new Error(`unterminated quote in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (char === "\\") {
      i += 1;
      if (line[i] !== "\n") word = (word ?? "") + (line[i] ?? "");
    } else {
      word = (word ?? "") + char;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
