import assert from "node:assert/strict";
import { test } from "node:test";
import { QueryLimiter } from "./query-limiter.js";

test("at most `limit` run at once, the others in arrival order, and a failure frees its place", async () => {
  const limiter = new QueryLimiter(2);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const work = (i: number) =>
    limiter.run(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      order.push(i);
      if (i === 1) throw new Error("failed");
      return i;
    });
  const results = await Promise.allSettled([0, 1, 2, 3, 4].map(work));
  assert.equal(most, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4]);
  assert.equal(results[1]!.status, "rejected");
  assert.deepEqual(
    results.filter((r) => r.status === "fulfilled").map((r) => (r as PromiseFulfilledResult<number>).value),
    [0, 2, 3, 4],
  );
  // Free again: one more runs at once.
  assert.equal(await limiter.run(async () => 5), 5);
});
