/**
 * Spawning a bench agent child and reading its `@@bench` reports from stderr.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { REPORT_PREFIX, type ChildReport } from "./agents/child.js";

export interface AgentChild {
  process: ChildProcessWithoutNullStreams;
  reports: ChildReport[];
  /** Rejects if the child exits before `finish()` is called (with its stderr tail in the message). */
  died: Promise<never>;
  /** Ends the child's stdin and waits for it to exit (kills it after `graceMs`). */
  finish(graceMs?: number): Promise<void>;
  kill(): void;
  /** A remote child's endpoint URL, once it reported listening. */
  listening(): Promise<string>;
  /** Exit status, `error` reports and stderr tail, for error messages (waits up to `waitMs` for the exit). */
  diagnose(waitMs?: number): Promise<string>;
}

/** `acp` itself, for agents started through `acp tap` (the bench runs from dist/bench or, with tsx, from bench/). */
const ACP_CLI = fileURLToPath(
  new URL(
    import.meta.url.endsWith(".ts")
      ? "../packages/cli/dist/src/cli/main.js"
      : "../../packages/cli/dist/src/cli/main.js",
    import.meta.url,
  ),
);

/**
 * What stands between the client and the agent child: nothing, `acp tap` (`acp tap [--trace tapTrace] -- node
 * agent.js`; the tap forwards the agent's stderr reports), or `cat` (`sh -c '"$0" "$@" | cat' node agent.js`: the
 * agent's output through the plainest forwarder there is, a reference for what any process in the path costs).
 */
export type Front = "none" | "tap" | "cat";

/** `cat` on this machine, for the `cat` front (POSIX systems). */
export const CAT_AVAILABLE = process.platform !== "win32" && existsSync("/bin/sh");

/**
 * Spawns an agent child behind `front`; `childArgs` go to the agent script (`--remote`: behind its remote server
 * instead of on stdio).
 */
export function spawnAgent(
  script: URL,
  front: Front = "none",
  childArgs: readonly string[] = [],
  tapTrace?: string,
): AgentChild {
  const path = fileURLToPath(script);
  const args = [...(path.endsWith(".ts") ? ["--import", "tsx"] : []), "--expose-gc", path, ...childArgs];
  const extra = process.env.BENCH_CHILD_NODE_ARGS ? process.env.BENCH_CHILD_NODE_ARGS.split(" ") : [];
  const trace = tapTrace === undefined ? [] : ["--trace", tapTrace];
  const agentArgv = [process.execPath, ...extra, ...args];
  const [command, ...argv] =
    front === "tap"
      ? [process.execPath, ACP_CLI, "tap", ...trace, "--", ...agentArgv]
      : front === "cat"
        ? ["/bin/sh", "-c", '"$0" "$@" | cat', ...agentArgv]
        : agentArgv;
  const child = spawn(command!, argv, { stdio: ["pipe", "pipe", "pipe"] });
  const reports: ChildReport[] = [];
  const onReport = new Set<() => void>();
  let tail = "";
  let pending = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text: string) => {
    pending += text;
    let nl: number;
    while ((nl = pending.indexOf("\n")) !== -1) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.startsWith(REPORT_PREFIX)) {
        try {
          reports.push(JSON.parse(line.slice(REPORT_PREFIX.length)) as ChildReport);
          for (const wake of onReport) wake();
        } catch {
          tail = (tail + line + "\n").slice(-4000);
        }
      } else {
        tail = (tail + line + "\n").slice(-4000);
      }
    }
  });
  // Writes to a child that died would otherwise raise unhandled EPIPE errors.
  child.stdin.on("error", () => {});
  child.stdout.on("error", () => {});

  let finishing = false;
  // "close" comes after "exit" and after the child's stdio has ended, so every report has been read by then.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  /** One line (what happened, the child's first reported error), then the details. */
  const describe = (what: string) => {
    const errors = reports.filter((r) => r.type === "error").map((r) => (r as { message: string }).message);
    const first = errors[0]?.split("\n")[0];
    return `${what}${first ? `: ${first}` : ""}${errors.length ? `\n${errors.join("\n")}` : ""}${
      tail ? `\n--- child stderr ` + `---\n${tail}` : ""
    }`;
  };
  const died = exited.then((code) => {
    if (!finishing) throw new Error(describe(`agent child exited early (code ${code})`));
    return new Promise<never>(() => {});
  });
  died.catch(() => {});

  return {
    process: child,
    reports,
    died,
    listening: () =>
      Promise.race([
        died,
        new Promise<string>((resolve) => {
          const check = () => {
            const found = reports.find((r): r is Extract<ChildReport, { type: "listening" }> => r.type === "listening");
            if (found) {
              onReport.delete(check);
              resolve(found.url);
            }
          };
          onReport.add(check);
          check();
        }),
      ]),
    async diagnose(waitMs = 1000) {
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([
        exited.then((c) => `exited with code ${c}`),
        new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still running"), waitMs))),
      ]);
      clearTimeout(timer);
      return describe(`agent child ${code}`);
    },
    kill: () => {
      finishing = true;
      child.kill("SIGKILL");
    },
    async finish(graceMs = 10_000) {
      finishing = true;
      if (!child.stdin.writableEnded) child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), graceMs)));
      const outcome = await Promise.race([exited, timeout]);
      clearTimeout(timer);
      if (outcome === "timeout") {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}
