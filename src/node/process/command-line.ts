/**
 * Splits a command line into argv the way a POSIX shell tokenizes words, without any shell: nothing is expanded
 * or executed, so `agent --x "$(rm -rf ~)"` yields the literal argument `$(rm -rf ~)`.
 */

/**
 * Splits `line` into words.
 *
 * - Words are separated by unquoted whitespace.
 * - `'...'` keeps everything literally; `"..."` keeps everything but `\"`, `\\`, `\$` and `` \` `` (unescaped);
 *   outside quotes, `\` escapes the next character.
 * - `""` and `''` make an empty argument.
 * - No variables, globs, `~`, pipes, redirections or command substitution: `$`, `*`, `|`, `;`, `>` are literal.
 *
 * Throws a `TypeError` for an unterminated quote, a trailing backslash, or a line with no words.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\") {
      if (i + 1 >= line.length) throw new TypeError(`the command line ends with a lone backslash: ${line}`);
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new TypeError(`the command line has an unterminated ${quote} quote: ${line}`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new TypeError("the command line is empty");
  return words;
}
