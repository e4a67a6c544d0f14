/**
 * The table and the targets of the many-connections rows (./connections-bench.ts).
 */
import type { ConnectionsRow } from "./connections-bench.js";
import type { Target } from "./report.js";
import { fmtNum, fmtRate } from "./stats.js";

/** The least throughput acpkit keeps against the official SDK at the most connections run, client + server. */
export const MANY_CONNECTIONS_VS_OFFICIAL = 3;

function rowFor(rows: readonly ConnectionsRow[], impl: string, profile: string, connections: number) {
  return rows.find((r) => r.impl === impl && r.profile === profile && r.connections === connections);
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
      `connections, less with one, over N`,
  );
  out("| via | connections | chunks each | impl | msg/s (all) | first done | server RSS/conn | notes |");
  out("| --- | ----------- | ----------- | ---- | ----------- | ---------- | --------------- | ----- |");
  for (const row of rows) {
    const m = row.median;
    out(
      `| ${row.profile} | ${row.connections} | ${fmtNum(row.chunksEach, 0)} | ${row.impl} | ` +
        `${m ? fmtRate(m.rate) : "-"} | ${m ? `${fmtNum(m.firstDone * 100, 0)}%` : "-"} | ` +
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
}
