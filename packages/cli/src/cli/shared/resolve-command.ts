/**
 * ACP wants an MCP stdio server's command as an absolute path; editors' files often say `npx` or `./server`.
 * Resolves a bare name through PATH and a relative path against the session's cwd; returns the command
 * unchanged when it cannot be found (the agent then reports what it could not start).
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

export function resolveCommand(command: string, cwd: string, path: string | undefined = process.env.PATH): string {
  if (isAbsolute(command)) return command;
  if (command.includes("/")) return resolve(cwd, command);
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, command);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return command;
}
