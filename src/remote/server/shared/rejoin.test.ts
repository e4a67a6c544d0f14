import assert from "node:assert/strict";
import { test } from "node:test";
import { Departures } from "./rejoin.js";

test("a participant lost with its node is kept for one rejoin, for a while", async () => {
  const departures = new Departures(60);
  const controller = { role: "controller" as const, clientId: "c-1", name: "editor" };
  departures.keep("s1", "conn-a", controller);
  departures.keep("s2", "conn-a", { role: "observer", clientId: "c-2" });
  assert.equal(departures.take("s1", "conn-b"), undefined, "another connection");
  assert.deepEqual(departures.take("s1", "conn-a"), controller);
  assert.equal(departures.take("s1", "conn-a"), undefined, "taken once");
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(departures.take("s2", "conn-a"), undefined, "kept too long ago");
  departures.keep("s3", "conn-c", controller);
  assert.equal(departures.size, 1, "expired ones go when another is kept");
});
