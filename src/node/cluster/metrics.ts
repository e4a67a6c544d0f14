/**
 * A node's counters and gauges, in the Prometheus text exposition format (version 0.0.4): connections and agents
 * hosted, streams open and opened, adoptions, fencings, and the database's latency as seen by the node.
 */

export class ClusterMetrics {
  streamsOpened = 0;
  adoptions = 0;
  adoptionFailures = 0;
  fenced = 0;
  heartbeatFailures = 0;
  #queries = 0;
  #querySeconds = 0;
  /** The last heartbeat's round trip, in milliseconds (NaN before the first). */
  lastHeartbeatMs = Number.NaN;
  /**
   * How late the renewal timer fired, in milliseconds: the longest of the last 16 renewals (a node whose event loop
   * is starved renews late, and one more than about three quarters of a lease late looks dead to the others).
   */
  readonly #renewalDelays: number[] = [];

  observeRenewalDelay(ms: number): void {
    this.#renewalDelays.push(ms);
    if (this.#renewalDelays.length > 16) this.#renewalDelays.shift();
  }

  observeQuery(ms: number): void {
    this.#queries++;
    this.#querySeconds += ms / 1000;
  }

  /** The exposition text, with the gauges the node reads now. */
  render(gauges: {
    readonly nodeId: string;
    readonly hostedConnections: number;
    readonly openStreams: number;
    readonly clusterConnections: number | undefined;
    readonly ready: boolean;
  }): string {
    const label = `{node="${gauges.nodeId.replaceAll('"', "")}"}`;
    const lines: string[] = [];
    const metric = (name: string, type: "gauge" | "counter", help: string, value: number) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, `${name}${label} ${format(value)}`);
    };
    metric(
      "acpkit_cluster_ready",
      "gauge",
      "1 when the node reaches its database and accepts connections",
      gauges.ready ? 1 : 0,
    );
    metric(
      "acpkit_cluster_agents",
      "gauge",
      "Agents running on this node (connections it owns)",
      gauges.hostedConnections,
    );
    if (gauges.clusterConnections !== undefined)
      metric("acpkit_cluster_connections", "gauge", "Open connections in the whole cluster", gauges.clusterConnections);
    metric("acpkit_cluster_streams_open", "gauge", "SSE streams this node is serving", gauges.openStreams);
    metric("acpkit_cluster_streams_opened_total", "counter", "SSE streams this node opened", this.streamsOpened);
    metric(
      "acpkit_cluster_adoptions_total",
      "counter",
      "Connections this node adopted from a node that died",
      this.adoptions,
    );
    metric(
      "acpkit_cluster_adoption_failures_total",
      "counter",
      "Adoptions that failed (the connection ended)",
      this.adoptionFailures,
    );
    metric(
      "acpkit_cluster_fenced_total",
      "counter",
      "Connections this node stopped after losing their lease",
      this.fenced,
    );
    metric(
      "acpkit_cluster_heartbeat_failures_total",
      "counter",
      "Heartbeats that could not reach the database",
      this.heartbeatFailures,
    );
    metric(
      "acpkit_cluster_db_heartbeat_seconds",
      "gauge",
      "Round trip of the last lease renewal",
      this.lastHeartbeatMs / 1000,
    );
    metric(
      "acpkit_cluster_renewal_delay_seconds",
      "gauge",
      "How late the lease renewal timer fired (the longest of the last 16): the node's event loop delay",
      this.#renewalDelays.length === 0 ? Number.NaN : Math.max(...this.#renewalDelays) / 1000,
    );
    lines.push(
      "# HELP acpkit_cluster_db_lookup_seconds Connection lookups (one per request) and their total time",
      "# TYPE acpkit_cluster_db_lookup_seconds summary",
      `acpkit_cluster_db_lookup_seconds_count${label} ${this.#queries}`,
      `acpkit_cluster_db_lookup_seconds_sum${label} ${format(this.#querySeconds)}`,
    );
    return `${lines.join("\n")}\n`;
  }
}

function format(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  return Number.isInteger(value) ? String(value) : value.toFixed(6);
}
