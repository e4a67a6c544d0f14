import assert from "node:assert/strict";
import { test } from "node:test";
import { type CompiledSchema, METHOD_TABLE, schemas } from "./index.js";
import { DOC_EXAMPLES } from "./testing/doc-examples.js";

const byName = schemas as unknown as Record<string, CompiledSchema<unknown>>;

function schemaFor(example: (typeof DOC_EXAMPLES)[number]): CompiledSchema<unknown> {
  if (example.def) return byName[example.def]!;
  const entry = METHOD_TABLE.find((e) => e.method === example.method);
  assert.ok(entry, `${example.method} is in the method table`);
  return byName[entry.params]!;
}

test("the documentation's JSON examples cover requests, notifications, results and bare values", () => {
  assert.ok(DOC_EXAMPLES.length >= 50);
  assert.ok(DOC_EXAMPLES.some((e) => e.method === "session/update"));
  assert.ok(DOC_EXAMPLES.some((e) => e.def === "InitializeResponse"));
});

for (const [i, example] of DOC_EXAMPLES.entries()) {
  const label = `doc example ${i + 1} (${example.doc}): ${example.method ?? example.def}`;
  test(label, () => {
    const schema = schemaFor(example);
    const value = structuredClone(example.value);
    if (example.outdated) {
      assert.deepEqual(
        schema.check(value).map((issue) => issue.path),
        [example.outdated],
      );
      return;
    }
    if (value === null) {
      // `"result": null` for an empty result: accepted inbound as {}, while what we send must be an object.
      assert.deepEqual(schema.parse(value), {});
      assert.equal(schema.is(value), false);
      return;
    }
    assert.deepEqual(schema.check(value), []);
    assert.equal(schema.is(value), true);
    assert.equal(schema.parse(value), value, "parse validates in place");
  });
}
