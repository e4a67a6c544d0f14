/**
 * The table and the targets of the many-connections rows (./connections-bench.ts).
 */
import type { ConnectionsRep, ConnectionsRow } from "./connections-bench.js";
import type { Target } from "./report.js";
import { fmtNum, fmtRate } from "./stats.js";

/** The least throughput acpkit keeps against the official SDK at the most connections run, client + server. */
export const MANY_CONNECTIONS_VS_OFFICIAL = 3;
/**
 * The longest a round trip of one more connection may take while the others stream, as a share of their turn's time:
 * the server serves it between the streaming agents' bursts, not after their turns. (The longest, not the median: a
 * probe held for a whole turn makes few round trips, and the median of the few it made says little.)
 */
export const ROUND_TRIP_SHARE_OF_TURN = 0.25;

function rowFor(rows: readonly ConnectionsRow[], impl: string, profile: string, connections: number) {
  return rows.find((r) => r.impl === impl && r.profile === profile && r.connections === connections);
}

function roundTrip(rep: ConnectionsRep | undefined): string {
  const rt = rep?.roundTrip;
  return rt ? `${fmtNum(rt.median, 1)} / ${fmtNum(rt.p99, 1)} / ${fmtNum(rt.max, 1)} (${rt.count})` : "-";
}

function kib(bytes: number | undefined): string {
  return bytes === undefined ? "-" : `${fmtNum(bytes / 1024, 0)} KiB`;
}

export function printConnectionsReport(rows: readonly ConnectionsRow[], out: (line: string) => void): void {
  if (rows.length === 0) return;
  const total = rows[0]!.chunksEach * rows[0]!.connections;
  const reps = Math.max(...rows.map((r) => r.reps.length));
  out("");
  out(
    `many connections to one server: each implementation's remote server with the bench agent in process; N clients ` +
      `of the same implementation, each its own connection and session, prompt at once for ${fmtNum(total, 0)} ` +
      `chunks in all; median rep of ${reps} (by rate)`,
  );
  out(
    `rate = every chunk at every client over the time until the last client had its answer and its chunks; first done ` +
      `= when the first client was done, a share of that time; RSS/conn = server RSS after gc with N idle ` +
      `connections, less with one, over N; round trip = one more connection's (another process) meanwhile, median / ` +
      `99th percentile / longest (count)`,
  );
  out(
    "| via | connections | chunks each | impl | msg/s (all) | first done | round trip ms | server RSS/conn | notes |",
  );
  out(
    "| --- | ----------- | ----------- | ---- | ----------- | ---------- | ------------- | --------------- | ----- |",
  );
  for (const row of rows) {
    const m = row.median;
    out(
      `| ${row.profile} | ${row.connections} | ${fmtNum(row.chunksEach, 0)} | ${row.impl} | ` +
        `${m ? fmtRate(m.rate) : "-"} | ${m ? `${fmtNum(m.firstDone * 100, 0)}%` : "-"} | ${roundTrip(m)} | ` +
        `${kib(row.rssPerConnection)} | ${row.error?.split("\n")[0] ?? ""} |`,
    );
  }
}

/**
 * Per profile, at the most connections run: acpkit (client + server) at least `MANY_CONNECTIONS_VS_OFFICIAL` times
 * the official SDK's aggregate rate, every chunk of every client in order.
 */
export function connectionsTargets(rows: readonly ConnectionsRow[], out: Target[]): void {
  if (rows.length === 0) return;
  const most = Math.max(...rows.map((r) => r.connections));
  for (const profile of [...new Set(rows.map((r) => r.profile))]) {
    const name =
      `(m) ${most} connections at once over ${profile}: acpkit client + server >= ` +
      `${MANY_CONNECTIONS_VS_OFFICIAL}x official client + server, every chunk in order`;
    const mine = rowFor(rows, "acpkit", profile, most);
    const theirs = rowFor(rows, "official", profile, most);
    if (mine?.median === undefined || mine.error !== undefined) {
      // acpkit failed (an error, or chunks lost or out of order): that fails the target; not run is N/A.
      const error = mine?.error;
      out.push({ name, status: error ? "FAIL" : "N/A", detail: `acpkit: ${error?.split("\n")[0] ?? "not run"}` });
      continue;
    }
    if (theirs?.median === undefined || theirs.error !== undefined) {
      out.push({ name, status: "N/A", detail: `official: ${theirs?.error?.split("\n")[0] ?? "not run"}` });
      continue;
    }
    const ratio = mine.median.rate / theirs.median.rate;
    out.push({
      name,
      status: ratio >= MANY_CONNECTIONS_VS_OFFICIAL ? "PASS" : "FAIL",
      detail:
        `${fmtRate(mine.median.rate)} vs ${fmtRate(theirs.median.rate)} msg/s = ${fmtNum(ratio, 2)}x ` +
        `(need >= ${MANY_CONNECTIONS_VS_OFFICIAL}x); server RSS per connection ${kib(mine.rssPerConnection)} vs ` +
        `${kib(theirs.rssPerConnection)}; first client done at ${fmtNum(mine.median.firstDone * 100, 0)}% vs ` +
        `${fmtNum(theirs.median.firstDone * 100, 0)}% of the time`,
    });
  }
  roundTripTargets(rows, most, out);
}

/**
 * Per profile, at the most connections run: acpkit's server answers one more connection's round trips while the
 * others stream within `ROUND_TRIP_SHARE_OF_TURN` of their turn's time, the longest of them (in the median rep).
 */
function roundTripTargets(rows: readonly ConnectionsRow[], most: number, out: Target[]): void {
  for (const profile of [...new Set(rows.map((r) => r.profile))]) {
    const name =
      `(m) a round trip while ${most} connections stream over ${profile}: acpkit's longest under ` +
      `${fmtNum(ROUND_TRIP_SHARE_OF_TURN * 100, 0)}% of their turn`;
    const mine = rowFor(rows, "acpkit", profile, most);
    const rt = mine?.median?.roundTrip;
    if (mine?.median === undefined || rt === undefined || mine.error !== undefined) {
      const why = mine?.error?.split("\n")[0] ?? (mine?.median ? "no round trip measured" : "not run");
      out.push({ name, status: mine?.error ? "FAIL" : "N/A", detail: `acpkit: ${why}` });
      continue;
    }
    const share = rt.max / mine.median.ms;
    const theirs = rowFor(rows, "official", profile, most)?.median?.roundTrip;
    out.push({
      name,
      status: share < ROUND_TRIP_SHARE_OF_TURN ? "PASS" : "FAIL",
      detail:
        `longest ${fmtNum(rt.max, 1)} ms (median ${fmtNum(rt.median, 1)} ms, ${rt.count} round trips) during a ` +
        `${fmtNum(mine.median.ms, 0)} ms turn = ${fmtNum(share * 100, 1)}% (need < ` +
        `${fmtNum(ROUND_TRIP_SHARE_OF_TURN * 100, 0)}%)` +
        (theirs
          ? `; official: longest ${fmtNum(theirs.max, 1)} ms, median ${fmtNum(theirs.median, 1)} ms (${theirs.count} round trips)`
          : ""),
    });
  }
}
