import assert from "node:assert/strict";
import { test } from "node:test";
import { startedByNpm, watchParent } from "./parent-watch.js";

test("watchParent resolves with the old parent's pid once the parent pid changes, not before", async () => {
  let parent = 4242;
  const watch = watchParent({ intervalMs: 5, ppid: () => parent });
  const alive = setTimeout(() => {}, 60_000); // the watch's timer is unref'd: this test keeps the loop up
  let resolved = false;
  void watch.gone.then(() => (resolved = true));
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(resolved, false);
  parent = 1;
  assert.equal(await watch.gone, 4242);
  clearTimeout(alive);
});

test("started by npm: npx, npm exec and npm run set npm_execpath", () => {
  assert.equal(startedByNpm({ npm_execpath: "/usr/lib/node_modules/npm/bin/npm-cli.js" }), true);
  assert.equal(startedByNpm({}), false);
});
