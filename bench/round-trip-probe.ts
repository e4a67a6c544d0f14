/**
 * Child main of the many-connections rows (./connections-bench.ts): one more client of the server, in a process of
 * its own so that what it measures is the server's, not the streaming clients' process. Connects with the named
 * implementation's remote client (`node round-trip-probe.js <impl> <websocket|http> <url>`), says `ready` on stdout,
 * then on each `go` line of stdin sends round trips (a `session/prompt` answered at once, one after another) until a
 * `stop` line, and prints their times as one JSON line (`{"ms":[...]}`). It exits when stdin ends; without its
 * arguments it does nothing but say how to run it.
 */
import { createInterface } from "node:readline";
import { acpkitImpl } from "./impls/acpkit.js";
import { officialImpl } from "./impls/official.js";
import type { Impl, RemoteProfile } from "./impls/types.js";

const IMPLS: Record<string, Impl> = { acpkit: acpkitImpl, official: officialImpl };

async function main(args: string[]): Promise<void> {
  const [name, profile, url] = args;
  const impl = name === undefined ? undefined : IMPLS[name];
  if (!impl?.connectRemote || (profile !== "websocket" && profile !== "http") || url === undefined) {
    process.stderr.write("usage: node round-trip-probe.js <acpkit|official> <websocket|http> <endpoint url>\n");
    process.exitCode = 2;
    return;
  }
  await impl.load();
  const client = await impl.connectRemote(url, profile as RemoteProfile, {
    onUpdate: () => {},
    readTextFile: () => "",
  });
  for (let i = 0; i < 100; i++) await client.prompt({ w: "b" }); // warm-up
  let running: Promise<number[]> | undefined;
  let stop = false;
  const lines = createInterface({ input: process.stdin });
  process.stdout.write("ready\n");
  for await (const line of lines) {
    if (line === "go" && running === undefined) {
      stop = false;
      running = (async () => {
        const times: number[] = [];
        while (!stop) {
          const started = performance.now();
          await client.prompt({ w: "b" });
          times.push(performance.now() - started);
        }
        return times;
      })();
    } else if (line === "stop" && running !== undefined) {
      stop = true;
      process.stdout.write(`${JSON.stringify({ ms: await running })}\n`);
      running = undefined;
    }
  }
  client.close();
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`round-trip probe: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
