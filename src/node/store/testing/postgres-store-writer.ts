/**
 * Test fixture: another process writing one session of a `PostgresSessionStore`, for the lease, fencing and kill -9
 * tests. Run as `node postgres-store-writer.js <connection string> <session id> <lease ms> <pace ms> <name>`: opens
 * the store (holder `<name>`), creates the session or takes its lease (`update`), prints `leased`, then appends
 * numbered records (`{ writer: <name>, i }`, three per append) one append after another, printing `ack <n>` once
 * each resolved (durable), `pace` ms apart. A refused append prints `refused <reason> <message>` and exits 3. A line
 * `close` on stdin stops it: it closes the store (releasing the lease) and prints `closed`. Does nothing without its
 * arguments. For tests only (not shipped).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "../../../jsonrpc/logger.js";
import { PostgresSessionStore } from "../postgres-session-store.js";

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(url: string, sessionId: string, leaseTtlMs: number, paceMs: number, name: string): Promise<void> {
  const store = await PostgresSessionStore.open({
    connection: { connectionString: url, logger: silentLogger },
    leaseTtlMs,
    holderName: name,
  });
  const now = new Date().toISOString();
  if ((await store.get(sessionId)) === undefined)
    await store.create({ sessionId, cwd: "/work", createdAt: now, updatedAt: now });
  else await store.update(sessionId, { updatedAt: now });
  out("leased");
  let stopping = false;
  process.stdin.setEncoding("utf8").on("data", (chunk: string) => {
    if (chunk.includes("close")) stopping = true;
  });
  for (let i = 0; !stopping;) {
    const batch = [i, i + 1, i + 2].map((n) => ({ kind: "data" as const, data: { writer: name, i: n } }));
    try {
      await store.append(sessionId, batch);
    } catch (error) {
      const reason = (error as { data?: { reason?: string } }).data?.reason ?? (error as Error).name;
      out(`refused ${reason} ${(error as Error).message}`);
      process.exitCode = 3;
      break;
    }
    i += batch.length;
    out(`ack ${i}`);
    if (paceMs > 0) await sleep(paceMs);
  }
  await store.close();
  out("closed");
  process.stdin.destroy();
}

const [url, sessionId, lease, pace, name] = process.argv.slice(2);
if (url !== undefined && sessionId !== undefined && name !== undefined)
  main(url, sessionId, Number(lease), Number(pace), name).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
