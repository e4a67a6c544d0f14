import assert from "node:assert/strict";
import { test } from "node:test";
import { ClusterMetrics } from "./metrics.js";

test("metrics render in the Prometheus text format, labelled with the node, counters as counted", () => {
  const metrics = new ClusterMetrics();
  metrics.adoptions = 2;
  metrics.fenced = 1;
  metrics.observeQuery(2);
  metrics.observeQuery(4);
  const text = metrics.render({
    nodeId: 'n1-"x"',
    hostedConnections: 3,
    openStreams: 5,
    clusterConnections: 7,
    ready: true,
  });
  const lines = text.trimEnd().split("\n");
  for (const line of lines) assert.match(line, /^(# (HELP|TYPE) \w+ .+|\w+\{node="n1-x"\} (\d+(\.\d+)?|NaN))$/, line);
  assert.match(text, /^acpkit_cluster_agents\{node="n1-x"\} 3$/m);
  assert.match(text, /^acpkit_cluster_connections\{node="n1-x"\} 7$/m);
  assert.match(text, /^acpkit_cluster_adoptions_total\{node="n1-x"\} 2$/m);
  assert.match(text, /^acpkit_cluster_fenced_total\{node="n1-x"\} 1$/m);
  assert.match(text, /^acpkit_cluster_db_lookup_seconds_count\{node="n1-x"\} 2$/m);
  assert.match(text, /^acpkit_cluster_db_lookup_seconds_sum\{node="n1-x"\} 0\.006000$/m);
  assert.match(text, /^# TYPE acpkit_cluster_adoptions_total counter$/m);
  // Unknown while the database is away: the gauge is left out, not made up.
  const away = metrics.render({
    nodeId: "n1",
    hostedConnections: 0,
    openStreams: 0,
    clusterConnections: undefined,
    ready: false,
  });
  assert.doesNotMatch(away, /acpkit_cluster_connections\{/);
  assert.match(away, /^acpkit_cluster_ready\{node="n1"\} 0$/m);
});
