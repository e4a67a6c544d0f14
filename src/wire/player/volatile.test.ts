import assert from "node:assert/strict";
import { test } from "node:test";
import { Correspondence } from "./volatile.js";

test("ids are learned on first sight and must stay consistent; times are ignored", () => {
  const c = new Correspondence();
  assert.deepEqual(
    c.compare({ sessionId: "rec-1", updatedAt: "2020" }, { sessionId: "live-9", updatedAt: "2026" }),
    [],
  );
  assert.deepEqual(c.compare({ sessionId: "rec-1" }, { sessionId: "live-9" }), []);
  assert.deepEqual(c.compare({ sessionId: "rec-1" }, { sessionId: "live-7" }), [
    { path: "$.sessionId", expected: "rec-1 (live: live-9)", actual: "live-7" },
  ]);
  assert.deepEqual(c.toLive({ params: { sessionId: "rec-1", text: "rec-1 stays text" } }), {
    params: { sessionId: "live-9", text: "rec-1 stays text" },
  });
});

test(
  "paths under a moved cwd are compared and rewritten with the " + "new prefix; other differences have their path",
  () => {
    const c = new Correspondence(new Set(["version"]));
    c.mapPrefix("/rec/cwd", "/live/dir");
    assert.equal(c.liveString("/rec/cwd/notes.txt"), "/live/dir/notes.txt");
    assert.equal(c.liveString("/rec/cwdx/notes.txt"), "/rec/cwdx/notes.txt");
    assert.deepEqual(
      c.compare(
        { path: "/rec/cwd/a", version: "1", list: [1, 2] },
        { path: "/live/dir/a", version: "2", list: [1, 3, 4] },
      ),
      [
        { path: "$.list[1]", expected: 2, actual: 3 },
        { path: "$.list[2]", expected: undefined, actual: 4 },
      ],
    );
    assert.deepEqual(c.compare({ a: { "odd key": 1 } }, { a: {} }), [
      { path: '$.a["odd key"]', expected: 1, actual: undefined },
    ]);
  },
);
