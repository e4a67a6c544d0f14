/**
 * A bearer token read from a file (`--token-file`), for `acp serve` and for the programs that reach a remote agent
 * (`acp exec`, `acp chat`, `acp connect`, `acp sessions`): a token on the command line is seen by every user of the
 * machine (`ps`), a file of mode 600 is not.
 */
import { readFileSync, statSync } from "node:fs";

/**
 * The token in `path`: its first line, trimmed. A file other users may read is said through `note`. Throws what
 * `fail` makes of the reason when the file cannot be read, its first line is empty or holds a space.
 */
export function readTokenFile(path: string, note: (text: string) => void, fail: (message: string) => Error): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw fail(
      `--token-file ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
  const token = (text.split(/\r?\n/, 1)[0] ?? "").trim();
  if (token === "") throw fail(`--token-file ${path}: its first line is empty; put the token there`);
  if (/\s/.test(token)) throw fail(`--token-file ${path}: the token must not contain spaces`);
  try {
    if ((statSync(path).mode & 0o077) !== 0)
      note(`--token-file ${path} may be read by other users of this machine: chmod 600 it`);
  } catch {
    // Read above; a stat failure now changes nothing.
  }
  return token;
}
