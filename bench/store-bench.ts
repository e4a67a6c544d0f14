/**
 * The session stores side by side: `PostgresSessionStore` against `FileSessionStore`, in the same run, on the same
 * disk (the file store's directory and the PostgreSQL data directory are both under the temporary directory). The
 * bench starts its own PostgreSQL 15 with the test support (`startTestPostgres`), with durability as a production
 * server has it (fsync, full_page_writes and synchronous_commit on), so that a resolved append means the same for
 * both: on disk. Rows:
 * - appends/s, one at a time: one record per `append`, each awaited before the next (a latency-bound writer);
 * - appends/s, in flight: 10 sessions x 1,000 appends of one record each, all made at once (what many streaming
 *   sessions do; both stores batch what waits, the PostgreSQL one across sessions in one statement);
 * - load of a 10,000-update session: `history()` on a store opened afresh (a new process would do this first).
 * Each figure is the median of the repetitions. `run.ts` runs it after the protocol rows (BENCH_STORE=0 leaves it
 * out; BENCH_ONLY=store runs only it).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { silentLogger } from "../src/jsonrpc/logger.js";
import type { SessionRecord, SessionStore } from "../src/agent/toolkit/session-store.js";
import { FileSessionStore } from "../src/node/store/file-session-store.js";
import { PostgresSessionStore } from "../src/node/store/postgres-session-store.js";
import { postgresUnavailable, startTestPostgres, type TestPostgres } from "../src/node/testing/postgres-server.js";
import { fmtNum, fmtRate, fmtRatio, median, table } from "./stats.js";

export interface StoreSizes {
  sequential: number;
  sessions: number;
  perSession: number;
  load: number;
}

export const storeSizes = (quick: boolean): StoreSizes =>
  quick
    ? { sequential: 200, sessions: 10, perSession: 200, load: 10_000 }
    : { sequential: 1_000, sessions: 10, perSession: 1_000, load: 10_000 };

type Kind = "file" | "postgres";
export interface StoreFigures {
  sequentialPerSec: number[];
  inFlightPerSec: number[];
  loadMs: number[];
}
export interface StoreBenchResult {
  sizes: StoreSizes;
  reps: number;
  skipped?: string;
  error?: string;
  figures: Partial<Record<Kind, StoreFigures>>;
}

const update = (i: number): SessionRecord => ({
  kind: "update",
  update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${i} chunk of streamed text..` } },
});
const now = () => new Date().toISOString();

interface Opener {
  open(): Promise<SessionStore>;
  cleanup(): Promise<void>;
}

function fileOpener(): Opener {
  const dir = mkdtempSync(path.join(tmpdir(), "acpkit-bench-store-"));
  return {
    open: async () => new FileSessionStore({ dir }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresOpener(server: TestPostgres): Promise<Opener> {
  await server.createDatabase("bench_sessions");
  const connectionString = server.connectionStringFor("bench_sessions");
  return {
    open: () => PostgresSessionStore.open({ connection: { connectionString, logger: silentLogger } }),
    cleanup: async () => {},
  };
}

let sessionCount = 0;
async function newSession(store: SessionStore): Promise<string> {
  const sessionId = `bench-${process.pid}-${++sessionCount}`;
  await store.create({ sessionId, cwd: "/bench", createdAt: now(), updatedAt: now() });
  return sessionId;
}

/** One repetition of each row on `opener`'s store. */
async function rep(opener: Opener, sizes: StoreSizes, loadSession: string, figures: StoreFigures): Promise<void> {
  const store = await opener.open();
  try {
    const one = await newSession(store);
    let t = performance.now();
    for (let i = 0; i < sizes.sequential; i++) await store.append(one, [update(i)]);
    figures.sequentialPerSec.push(sizes.sequential / ((performance.now() - t) / 1000));

    const many: string[] = [];
    for (let s = 0; s < sizes.sessions; s++) many.push(await newSession(store));
    t = performance.now();
    await Promise.all(
      many.flatMap((sessionId) =>
        Array.from({ length: sizes.perSession }, (_, i) => store.append(sessionId, [update(i)])),
      ),
    );
    figures.inFlightPerSec.push((sizes.sessions * sizes.perSession) / ((performance.now() - t) / 1000));
  } finally {
    await store.close?.();
  }
  const fresh = await opener.open();
  try {
    const t = performance.now();
    const history = await fresh.history(loadSession);
    figures.loadMs.push(performance.now() - t);
    if (history.length !== sizes.load) throw new Error(`loaded ${history.length} updates, expected ${sizes.load}`);
  } finally {
    await fresh.close?.();
  }
}

/** A session of `count` updates in `opener`'s store (appended in batches of 500, as a long session grows). */
async function seed(opener: Opener, count: number): Promise<string> {
  const store = await opener.open();
  try {
    const sessionId = await newSession(store);
    for (let i = 0; i < count; i += 500)
      await store.append(
        sessionId,
        Array.from({ length: Math.min(500, count - i) }, (_, k) => update(i + k)),
      );
    return sessionId;
  } finally {
    await store.close?.();
  }
}

/** Runs the store rows; never throws (a failure is reported in the result). */
export async function runStoreBench(options: {
  quick: boolean;
  reps: number;
  progress: (line: string) => void;
}): Promise<StoreBenchResult> {
  const sizes = storeSizes(options.quick);
  const result: StoreBenchResult = { sizes, reps: options.reps, figures: {} };
  let reason: string | undefined;
  try {
    reason = postgresUnavailable();
  } catch (error) {
    reason = error instanceof Error ? error.message : String(error);
  }
  if (reason !== undefined) {
    result.skipped = reason;
    options.progress(`(store) skipped: ${reason}`);
    return result;
  }
  let server: TestPostgres | undefined;
  const openers: Partial<Record<Kind, Opener>> = {};
  try {
    server = await startTestPostgres({ settings: { fsync: "on", full_page_writes: "on", synchronous_commit: "on" } });
    openers.file = fileOpener();
    openers.postgres = await postgresOpener(server);
    const seeded: Partial<Record<Kind, string>> = {};
    for (const kind of ["file", "postgres"] as const) {
      seeded[kind] = await seed(openers[kind]!, sizes.load);
      result.figures[kind] = { sequentialPerSec: [], inFlightPerSec: [], loadMs: [] };
    }
    // One warm-up repetition each (JIT, caches, the pool's connections), then the measured ones, interleaved.
    for (let k = 0; k <= options.reps; k++) {
      for (const kind of ["file", "postgres"] as const) {
        const figures: StoreFigures =
          k === 0 ? { sequentialPerSec: [], inFlightPerSec: [], loadMs: [] } : result.figures[kind]!;
        const started = performance.now();
        await rep(openers[kind]!, sizes, seeded[kind]!, figures);
        const last = (values: number[]) => values[values.length - 1];
        options.progress(
          `(store) ${kind.padEnd(8)} ${k === 0 ? "warm-up" : `rep ${k}/${options.reps}`}  ` +
            `${fmtRate(last(figures.sequentialPerSec))}/s one at a time, ${fmtRate(last(figures.inFlightPerSec))}/s in flight, ` +
            `load ${fmtNum(last(figures.loadMs))} ms  (${fmtNum((performance.now() - started) / 1000, 1)} s)`,
        );
      }
    }
  } catch (error) {
    result.error = error instanceof Error ? (error.stack ?? error.message) : String(error);
    options.progress(`(store) ERROR ${result.error.split("\n")[0]}`);
  } finally {
    for (const opener of Object.values(openers)) await opener.cleanup();
    await server?.close();
  }
  return result;
}

/** The store rows as a table: medians, and PostgreSQL / file. */
export function printStoreReport(result: StoreBenchResult, out: (line: string) => void): void {
  out("");
  out(
    `session stores: PostgresSessionStore vs FileSessionStore, same run, same disk (PostgreSQL 15 started by the bench, ` +
      `fsync on); median of ${result.reps} reps after a warm-up`,
  );
  if (result.skipped !== undefined) return out(`  skipped: ${result.skipped}`);
  if (result.error !== undefined) out(`  ERROR: ${result.error.split("\n")[0]}`);
  const { file, postgres } = result.figures;
  const m = (values: number[] | undefined) =>
    values === undefined || values.length === 0 ? undefined : median(values);
  const row = (
    label: string,
    pick: (f: StoreFigures) => number[],
    format: (v: number | undefined) => string,
    higher: boolean,
  ) => {
    const a = m(file && pick(file));
    const b = m(postgres && pick(postgres));
    const ratio = a === undefined || b === undefined ? undefined : higher ? b / a : a / b;
    return [label, format(a), format(b), fmtRatio(ratio)];
  };
  const s = result.sizes;
  out(
    table(
      ["row", "file", "postgres", "postgres/file (higher is better)"],
      [
        row(
          `appends/s, one at a time (${s.sequential})`,
          (f) => f.sequentialPerSec,
          (v) => fmtRate(v),
          true,
        ),
        row(
          `appends/s, in flight (${s.sessions} sessions x ${s.perSession})`,
          (f) => f.inFlightPerSec,
          (v) => fmtRate(v),
          true,
        ),
        row(
          `load a ${s.load.toLocaleString("en-US")}-update session (ms)`,
          (f) => f.loadMs,
          (v) => fmtNum(v),
          false,
        ),
      ],
    ),
  );
}
