/**
 * Diagnostics for the many-connections test: while a phase waits, every `everyMs` a report on stderr of what has not
 * finished: each pending connection's last received chunk, its lease row (owner, token, adoptions, ended), its
 * streams (reader node, how far they were taken, the last event written), its inbox and open prompts; and each node's
 * state (alive, its metrics' agents, streams and adoptions, the tail of its log). When a run hangs, the report says
 * where. Nothing here runs on its own.
 */
import type { ServeCluster } from "./serve-cluster.js";

/** One test connection as the report sees it. */
export interface ReportedConnection {
  readonly index: number;
  readonly sessionId: string;
  /** What it received last, for the report (e.g. its last chunk and how many). */
  received(): string;
}

type Row = {
  session_id: string;
  connection_id: string;
  owner_node: string | null;
  lease_token: string | null;
  adoptions: number | null;
  ended: boolean | null;
  streams: string | null;
  inbox: number;
  prompts: number;
};

/** The report of the connections `pending()` names, and of every node. */
export async function clusterReport(
  cluster: ServeCluster,
  phase: string,
  pending: readonly ReportedConnection[],
): Promise<string> {
  const names = new Map(cluster.nodes.map((node) => [node.nodeId, node.name]));
  const name = (id: string | null) => (id === null ? "-" : (names.get(id) ?? id.slice(0, 8)));
  const lines = [`[serve-many] ${new Date().toISOString()} ${phase}: ${pending.length} pending`];
  try {
    const rows = await cluster.pool.query<Row>(
      `SELECT s.session_id, s.connection_id, c.owner_node, c.lease_token::text, c.adoptions, c.ended_at IS NOT NULL AS ended,
              (SELECT string_agg(format('%s@%s taken %s last %s', CASE WHEN st.stream = '' THEN 'conn' ELSE 'sess' END,
                        coalesce(st.reader_node, '-'), st.taken,
                        (SELECT max(e.event_id) FROM acpkit_cluster_events e
                          WHERE e.connection_id = st.connection_id AND e.stream = st.stream)), '; ')
                 FROM acpkit_cluster_streams st WHERE st.connection_id = s.connection_id) AS streams,
              (SELECT count(*)::int FROM acpkit_cluster_inbox i WHERE i.connection_id = s.connection_id) AS inbox,
              (SELECT count(*)::int FROM acpkit_cluster_prompts p WHERE p.connection_id = s.connection_id) AS prompts
         FROM acpkit_cluster_sessions s JOIN acpkit_cluster_connections c USING (connection_id)
        WHERE s.session_id = ANY($1)`,
      [pending.map((connection) => connection.sessionId)],
    );
    const bySession = new Map(rows.rows.map((row) => [row.session_id, row]));
    for (const connection of pending.slice(0, 40)) {
      const row = bySession.get(connection.sessionId);
      const streams = (row?.streams ?? "").replace(/[0-9a-f]{16,}/g, (id) => name(id));
      lines.push(
        `  #${connection.index} got ${connection.received()}; ` +
          (row === undefined
            ? "no session row"
            : `conn ${row.connection_id.slice(0, 8)} owner ${name(row.owner_node)} token ${row.lease_token} ` +
              `adoptions ${row.adoptions}${row.ended ? " ENDED" : ""}; inbox ${row.inbox}, prompts ${row.prompts}; ${streams}`),
      );
    }
    if (pending.length > 40) lines.push(`  ... and ${pending.length - 40} more`);
  } catch (error) {
    lines.push(`  (database: ${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    const beats = await cluster.pool.query<{ node_id: string; age: number }>(
      "SELECT node_id, extract(epoch FROM now() - seen_at)::float8 AS age FROM acpkit_cluster_nodes",
    );
    const backends = await cluster.pool.query<{ what: string; n: number }>(
      `SELECT coalesce(state, '-') || coalesce(' ' || wait_event_type || ':' || wait_event, '') AS what, count(*)::int AS n
         FROM pg_stat_activity WHERE backend_type = 'client backend' GROUP BY 1 ORDER BY 2 DESC`,
    );
    lines.push(
      `  last beats: ${beats.rows.map((row) => `${name(row.node_id)} ${row.age.toFixed(1)} s ago`).join(", ")}; ` +
        `database sessions: ${backends.rows.map((row) => `${row.n} ${row.what}`).join(", ")}`,
    );
  } catch {
    // The database report above says why.
  }
  for (const node of cluster.nodes) {
    const alive = node.process.child.exitCode === null && node.process.child.signalCode === null;
    let metrics = "";
    if (alive) {
      try {
        const text = await (
          await fetch(node.process.url.replace(/\/acp$/, "/metrics"), {
            headers: { authorization: `Bearer ${cluster.token}` },
            signal: AbortSignal.timeout(5000),
          })
        ).text();
        metrics = [
          "server_connections",
          "cluster_agents",
          "cluster_streams_open",
          "cluster_adoptions_total",
          "cluster_adoption_failures_total",
          "cluster_fenced_total",
          "cluster_heartbeat_failures_total",
          "cluster_db_heartbeat_seconds",
          "cluster_renewal_delay_seconds",
        ]
          .map((metric) => `${metric} ${new RegExp(`^acpkit_${metric}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1]}`)
          .join(", ");
      } catch (error) {
        metrics = `metrics: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    lines.push(`  ${node.name} ${node.nodeId.slice(0, 8)} ${alive ? "alive" : "dead"} ${metrics}`);
    for (const line of node.process.stderr().trimEnd().split("\n").slice(-4)) lines.push(`    | ${line.slice(0, 300)}`);
  }
  return lines.join("\n");
}

/**
 * Runs `work`; while it has not settled, writes a report on stderr every `everyMs`. `pending()` names the
 * connections the phase still waits for.
 */
export async function reporting<T>(
  cluster: ServeCluster,
  phase: string,
  everyMs: number,
  pending: () => readonly ReportedConnection[],
  work: Promise<T>,
): Promise<T> {
  let settled = false;
  const started = Date.now();
  const loop = (async () => {
    while (!settled) {
      await new Promise((resolve) => setTimeout(resolve, everyMs).unref());
      if (settled) return;
      const report = await clusterReport(
        cluster,
        `${phase} after ${Math.round((Date.now() - started) / 1000)} s`,
        pending(),
      );
      if (!settled) process.stderr.write(report + "\n");
    }
  })();
  try {
    return await work;
  } finally {
    settled = true;
    void loop.catch(() => {});
  }
}
