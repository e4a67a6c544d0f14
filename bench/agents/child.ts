/**
 * The measuring shell every bench agent child runs in. stdout is the protocol pipe, so the child reports only on
 * stderr, as lines `@@bench {json}`: one per prompt turn (idle baseline, sampled peak, end RSS) and one at exit
 * (`process.resourceUsage().maxRSS`). The child exits when its stdin ends.
 */
import type { TurnObserver } from "../agent-logic.js";
import type { Impl } from "../impls/types.js";
import { collectGarbage, maxRssBytes, RssSampler } from "../rss.js";
import type { Command } from "../workloads.js";

export const REPORT_PREFIX = "@@bench ";

export type ChildReport =
  | {
      type: "turn";
      w: string;
      baselineRss: number;
      startRss: number;
      peakRss: number;
      endRss: number;
      ms: number;
      /** CPU time (user + system) of this process during the turn, in ms. */
      cpuMs: number;
      info: Record<string, unknown>;
    }
  | { type: "exit"; maxRss: number; sampledPeakRss: number; samples: number }
  | { type: "listening"; url: string }
  | { type: "error"; message: string };

function report(line: ChildReport): void {
  process.stderr.write(REPORT_PREFIX + JSON.stringify(line) + "\n");
}

class ChildObserver implements TurnObserver {
  readonly sampler = new RssSampler(20).start();
  private baselineRss = 0;
  private startRss = 0;
  private started = 0;
  private cpuStart: NodeJS.CpuUsage | undefined;

  idle(): void {
    collectGarbage();
    this.baselineRss = this.sampler.reset();
  }

  turnStart(_cmd: Command): void {
    this.startRss = this.sampler.sample();
    if (this.baselineRss === 0) this.baselineRss = this.startRss;
    this.started = performance.now();
    this.cpuStart = process.cpuUsage();
  }

  turnEnd(cmd: Command, info: Record<string, unknown>): void {
    const endRss = this.sampler.sample();
    const cpu = process.cpuUsage(this.cpuStart);
    report({
      type: "turn",
      w: cmd.w,
      baselineRss: this.baselineRss,
      startRss: this.startRss,
      peakRss: this.sampler.peak,
      endRss,
      ms: performance.now() - this.started,
      cpuMs: (cpu.user + cpu.system) / 1000,
      info,
    });
    this.baselineRss = 0;
  }
}

/** Runs `serve` (which wires an agent to this process's stdin/stdout) under the measuring shell. */
export function runChild(serve: (observer: TurnObserver) => Promise<void> | void): void {
  const observer = new ChildObserver();
  let exiting = false;
  const exit = (code: number) => {
    if (exiting) return;
    exiting = true;
    observer.sampler.sample();
    report({
      type: "exit",
      maxRss: maxRssBytes(),
      sampledPeakRss: observer.sampler.lifetimePeak,
      samples: observer.sampler.samples,
    });
    process.exit(code);
  };
  const fail = (error: unknown) => {
    report({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    exit(1);
  };
  process.on("uncaughtException", fail);
  process.on("unhandledRejection", fail);
  process.stdin.once("end", () => exit(0));
  process.stdin.once("close", () => exit(0));
  Promise.resolve()
    .then(() => serve(observer))
    .catch(fail);
}

/**
 * Runs `impl`'s bench agent under the measuring shell: over stdin/stdout, or with `--remote` behind the
 * implementation's remote server (then the child reports `{"type":"listening","url":...}` and exits when its stdin
 * ends, as over a pipe).
 */
export function runImplChild(impl: Impl): void {
  if (!process.argv.includes("--remote")) return runChild((observer) => impl.serveStdio(observer));
  // Nothing reads stdin in this mode: let it flow, so that its end (the bench is done) is seen.
  process.stdin.resume();
  runChild(async (observer) => {
    if (!impl.serveRemote) throw new Error(`${impl.name} has no remote server`);
    report({ type: "listening", url: await impl.serveRemote(observer) });
  });
}
