import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DispatchPacer } from "./dispatch-pacer.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("DispatchPacer", () => {
  it("delivers at most maxBurst requests per turn, in order, holding the input while the rest waits", async () => {
    const holds: boolean[] = [];
    const pacer = new DispatchPacer(
      3,
      (held) => holds.push(held),
      () => false,
    );
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) pacer.run(() => (seen.push(i), true));
    assert.deepEqual(seen, [0, 1, 2]);
    assert.deepEqual(holds, [true]);
    assert.equal(pacer.waiting, 5);
    await turn();
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5]);
    await turn();
    assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(holds, [true, false]);
  });

  it("counts only requests: notifications and responses flow, but never overtake a waiting line", async () => {
    const pacer = new DispatchPacer(
      1,
      () => {},
      () => false,
    );
    const seen: string[] = [];
    pacer.run(() => (seen.push("note"), false));
    pacer.run(() => (seen.push("req1"), true));
    pacer.run(() => (seen.push("req2"), true));
    pacer.run(() => (seen.push("note2"), false));
    assert.deepEqual(seen, ["note", "req1"]);
    await turn();
    assert.deepEqual(seen, ["note", "req1", "req2"]);
    await turn();
    assert.deepEqual(seen, ["note", "req1", "req2", "note2"]);
  });

  it(
    "keeps waiting while the output holds the input, goes on when it releases, runs whenIdle after the last " + "line",
    async () => {
      let outputHeld = true;
      const pacer = new DispatchPacer(
        1,
        () => {},
        () => outputHeld,
      );
      const seen: number[] = [];
      for (let i = 0; i < 3; i++) pacer.run(() => (seen.push(i), true));
      let idle = false;
      pacer.whenIdle(() => (idle = true));
      await turn();
      await turn();
      assert.deepEqual(seen, [0]);
      assert.equal(idle, false);
      outputHeld = false;
      pacer.outputReleased();
      assert.deepEqual(seen, [0, 1]);
      await turn();
      assert.deepEqual(seen, [0, 1, 2]);
      assert.equal(idle, true);
    },
  );

  it("stop() drops what waits and delivers nothing more", async () => {
    const pacer = new DispatchPacer(
      1,
      () => {},
      () => false,
    );
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) pacer.run(() => (seen.push(i), true));
    pacer.stop();
    pacer.run(() => (seen.push(9), true));
    await turn();
    assert.deepEqual(seen, [0]);
  });
});
