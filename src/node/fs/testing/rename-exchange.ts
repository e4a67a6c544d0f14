/**
 * Test helper: a hostile process that swaps two paths over and over with `renameat2(RENAME_EXCHANGE)` (atomic: at
 * every instant each name exists, as the directory or as the symlink), pausing about 20 µs between exchanges: still
 * tens of exchanges during each request of the host under test, without spinning a core (and the file system's
 * rename lock) flat out for the whole test, which slowed every other test running beside it. Built from a tiny C program when `cc` exists,
 * else run through python3's ctypes; `startSwapper` resolves with the reason instead when neither works or the file
 * system does not support the exchange (the caller decides whether that skips or fails). For tests only (not shipped).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const C_SOURCE = `
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
int main(int argc, char **argv) {
  if (argc != 3) return 2;
  if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], 2 /* RENAME_EXCHANGE */) != 0) { perror("renameat2"); return 1; }
  fputs("ready\\n", stdout); fflush(stdout);
  for (;;) { syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], 2); usleep(20); }
}
`;

const PY_SOURCE = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
def swap():
    if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
swap(); print("ready", flush=True)
while True: swap(); time.sleep(0.00002)
`;

/** The command that runs the swapper, or undefined. Compiled once per process. */
let command: string[] | undefined | null = null;
let buildDir: string | undefined;

/** Why the swapper cannot run here. */
export interface SwapperUnavailable {
  readonly unavailable: string;
}

function swapperCommand(): string[] | undefined {
  if (command !== null) return command;
  buildDir = mkdtempSync(path.join(tmpdir(), "acpkit-swapper-"));
  process.once("exit", () => rmSync(buildDir!, { recursive: true, force: true }));
  try {
    const source = path.join(buildDir, "swap.c");
    const binary = path.join(buildDir, "swap");
    writeFileSync(source, C_SOURCE);
    execFileSync("cc", ["-O2", "-o", binary, source], { stdio: "ignore" });
    command = [binary];
  } catch {
    const script = path.join(buildDir, "swap.py");
    writeFileSync(script, PY_SOURCE);
    try {
      execFileSync("python3", ["-c", "import ctypes; ctypes.CDLL(None).renameat2"], { stdio: "ignore" });
      command = ["python3", script];
    } catch {
      command = undefined;
    }
  }
  return command;
}

/** Starts swapping `a` and `b`; resolves with the process once the first exchange succeeded, or with why not. */
export async function startSwapper(a: string, b: string): Promise<ChildProcess | SwapperUnavailable> {
  if (process.platform !== "linux")
    return { unavailable: `renameat2(RENAME_EXCHANGE) is Linux-only (this is ${process.platform})` };
  const argv = swapperCommand();
  if (argv === undefined)
    return {
      unavailable:
        "neither cc nor python3 (with ctypes and renameat2 in libc) can build the swapper: install a C " +
        "compiler or python3",
    };
  const child = spawn(argv[0]!, [...argv.slice(1), a, b], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const ready = await new Promise<boolean>((resolve) => {
    child.once("error", () => resolve(false));
    child.once("exit", () => resolve(false));
    child.stdout!.once("data", () => resolve(true));
  });
  if (!ready) {
    child.kill("SIGKILL");
    return {
      unavailable:
        `the swapper (${argv.join(" ")}) could not exchange ${a} and ` +
        `${b}${stderr.trim() ? `: ${stderr.trim()}` : ""} (does this file system support RENAME_EXCHANGE?)`,
    };
  }
  return child;
}

/** Stops the swapper and waits for it to be gone. */
export async function stopSwapper(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}
