/**
 * The many-connections rows' side of the round-trip probe (./round-trip-probe.ts, a child of its own): started with
 * the server's URL, `go` before the connections' turn, `stop` after it answers with the round trips' times.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { RemoteProfile } from "./impls/types.js";

const ROUND_TRIP_PROBE = fileURLToPath(new URL("./round-trip-probe.js", import.meta.url));

/** The round-trip probe child (./round-trip-probe.ts): `go`, then `stop` answers with the round trips' times. */
export class RoundTripProbe {
  readonly #child: ChildProcess;
  readonly #lines: Interface;
  readonly #waiting: Array<(line: string) => void> = [];

  constructor(impl: string, profile: RemoteProfile, url: string) {
    this.#child = spawn(process.execPath, [ROUND_TRIP_PROBE, impl, profile, url], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.#child.stdin!.on("error", () => {});
    this.#lines = createInterface({ input: this.#child.stdout! });
    this.#lines.on("line", (line) => this.#waiting.shift()?.(line));
  }

  #next(what: string, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the round-trip probe: no ${what} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      const exited = () => reject(new Error(`the round-trip probe exited before its ${what}`));
      this.#child.once("exit", exited);
      this.#waiting.push((line) => {
        clearTimeout(timer);
        this.#child.off("exit", exited);
        resolve(line);
      });
    });
  }

  async ready(timeoutMs: number): Promise<void> {
    const line = await this.#next("ready", timeoutMs);
    if (line !== "ready") throw new Error(`the round-trip probe said ${JSON.stringify(line)}`);
  }

  go(): void {
    this.#child.stdin!.write("go\n");
  }

  async stop(timeoutMs: number): Promise<number[]> {
    const answer = this.#next("times", timeoutMs);
    this.#child.stdin!.write("stop\n");
    return (JSON.parse(await answer) as { ms: number[] }).ms;
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once("exit", resolve));
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  }
}
