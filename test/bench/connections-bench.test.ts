/**
 * The many-connections rows of the bench: a small real run (acpkit's remote server in a child, its clients here)
 * fills every row, and the target judges acpkit against the official SDK at the most connections run, failing on a
 * lost or reordered chunk whatever the rate.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { runConnectionsBench, type ConnectionsRow } from "../../bench/connections-bench.js";
import { connectionsTargets } from "../../bench/connections-report.js";
import { acpkitImpl } from "../../bench/impls/acpkit.js";
import type { Target } from "../../bench/report.js";
import { sizesFor } from "../../bench/workloads.js";

function row(
  impl: "acpkit" | "official",
  connections: number,
  rate: number,
  extra: Partial<ConnectionsRow> = {},
): ConnectionsRow {
  const rep = { ms: 1000, rate, firstDone: 0.5, roundTrip: { median: 20, p99: 40, max: 50, count: 50 } };
  return { impl, profile: "websocket", connections, chunksEach: 10, reps: [rep], median: rep, ...extra };
}

function judge(rows: ConnectionsRow[]): Target[] {
  const out: Target[] = [];
  connectionsTargets(rows, out);
  return out;
}

test("the target compares acpkit with the official SDK at the most connections run", () => {
  // At 1 connection acpkit is only 2x; at 100, 4x: the 100-connection rows decide.
  const rows = [row("official", 1, 100), row("acpkit", 1, 200), row("official", 100, 100), row("acpkit", 100, 400)];
  const [target, roundTrip, ...rest] = judge(rows);
  assert.equal(rest.length, 0);
  assert.equal(roundTrip!.status, "PASS");
  assert.equal(target!.status, "PASS");
  assert.match(target!.name, /100 connections at once over websocket/);
  assert.match(target!.detail, /= 4\.00x \(need >= 3x\)/);

  assert.equal(judge([row("official", 100, 100), row("acpkit", 100, 299)])[0]!.status, "FAIL");
});

test("a round trip while the others stream: the longest under a quarter of their turn passes", () => {
  // Held for most of the turn once: a good median of the few round trips made does not save it.
  const held = row("acpkit", 100, 400, {});
  held.median = { ...held.median!, ms: 1000, roundTrip: { median: 2, p99: 980, max: 980, count: 3 } };
  const [, failed] = judge([row("official", 100, 100), held]);
  assert.equal(failed!.status, "FAIL");
  assert.match(failed!.name, /a round trip while 100 connections stream over websocket/);
  assert.match(failed!.detail, /longest 980\.0 ms \(median 2\.0 ms, 3 round trips\) during a 1000 ms turn = 98\.0%/);

  const [, passed] = judge([row("official", 100, 100), row("acpkit", 100, 400)]);
  assert.equal(passed!.status, "PASS");
  assert.match(passed!.detail, /= 5\.0% \(need < 25%\).*official: longest 50\.0 ms/);

  const none = row("acpkit", 100, 400);
  none.median = { ...none.median!, roundTrip: undefined };
  assert.equal(judge([row("official", 100, 100), none])[1]!.status, "N/A");
});

test("a lost or reordered chunk fails the target whatever the rate; a missing official row is N/A", () => {
  const broken = row("acpkit", 100, 10_000, { error: "chunk order broken: 2 of 2000 chunks out of place" });
  const [failed] = judge([row("official", 100, 100), broken]);
  assert.equal(failed!.status, "FAIL");
  assert.equal(failed!.detail, "acpkit: chunk order broken: 2 of 2000 chunks out of place");

  const [absent] = judge([row("acpkit", 100, 400)]);
  assert.equal(absent!.status, "N/A");
  assert.equal(absent!.detail, "official: not run");
  assert.deepEqual(judge([]), []);
});

test("a small real run fills every row: rates, the first client's share, RSS per connection", async () => {
  await acpkitImpl.load();
  const lines: string[] = [];
  const rows = await runConnectionsBench({
    impls: [acpkitImpl],
    sizes: { ...sizesFor(true), a: 400 },
    quick: true,
    reps: 1,
    timeoutMs: 30_000,
    progress: (line) => lines.push(line),
  });
  // Quick: 1 and 10 connections, over WebSocket and Streamable HTTP.
  assert.deepEqual(
    rows.map((r) => `${r.profile} ${r.connections} ${r.chunksEach}`),
    ["websocket 1 400", "websocket 10 40", "http 1 400", "http 10 40"],
  );
  for (const r of rows) {
    assert.equal(r.error, undefined, r.error);
    assert.equal(r.reps.length, 1);
    assert.ok(r.median!.rate > 0);
    assert.ok(r.median!.firstDone > 0 && r.median!.firstDone <= 1);
    assert.ok(r.median!.roundTrip!.count >= 1 && r.median!.roundTrip!.max >= r.median!.roundTrip!.median);
    if (process.platform === "linux") assert.equal(typeof r.rssPerConnection, "number");
  }
  assert.equal(lines.length, 4);
});
