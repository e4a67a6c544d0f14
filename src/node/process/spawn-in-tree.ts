/**
 * Spawning a process straight into its tree: with the tree's environment tag, and, where the tree has a cgroup,
 * born inside it. Node cannot spawn into a cgroup (`clone3(CLONE_INTO_CGROUP)`), and moving the child in after
 * `spawn()` returns races its first fork (on a busy machine the child often wins). So the program is started through
 * `/bin/sh -c 'echo $$ > <cgroup.procs>; exec "$@"'`: the shell moves itself into the cgroup, then `exec`s the
 * program in its place (same pid, same argv[0], same environment, `PATH` searched as `spawn` would), so nothing it
 * ever forks is outside. The program is looked up first, so a missing or non-executable one still fails the way
 * `spawn` reports it (an `error` event with ENOENT or EACCES).
 */
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import path from "node:path";
import type { ProcessTree } from "./process-tree.js";

const WRAPPER = 'echo $$ > "$0" 2>/dev/null; exec "$@"';

/** Whether `command` names an executable regular file, searched on `PATH` as execvp would (relative to `cwd`). */
export function findProgram(command: string, env: NodeJS.ProcessEnv, cwd: string): boolean {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes("/")) return executable(path.resolve(cwd, command));
  const dirs = (env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(":");
  return dirs.some((dir) => executable(path.resolve(cwd, dir === "" ? "." : dir, command)));
}

/**
 * Spawns `command args` in `tree`: the tag added to `options.env`, born in the tree's cgroup where there is one (see
 * the file's comment), and adopted by the tree. `options` must carry the environment to use (`env`).
 */
export function spawnInTree(
  tree: ProcessTree,
  command: string,
  args: readonly string[],
  options: SpawnOptions & { env: NodeJS.ProcessEnv },
): ChildProcess {
  const env = { ...options.env, ...tree.env };
  const procs = tree.cgroup?.procsFile;
  const cwd = typeof options.cwd === "string" ? options.cwd : process.cwd();
  const child =
    procs !== undefined && findProgram(command, env, cwd)
      ? spawn("/bin/sh", ["-c", WRAPPER, procs, command, ...args], { ...options, env })
      : spawn(command, args, { ...options, env });
  if (child.pid !== undefined) tree.adopt(child.pid);
  return child;
}
