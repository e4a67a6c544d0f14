import assert from "node:assert/strict";
import { test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import {
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
  MultiSelectItems,
} from "./index.js";
import * as unstable from "./unstable.js";

const form = {
  message: "Name?",
  mode: "form",
  sessionId: "s",
  requestedSchema: { type: "object", properties: {} },
} as const;
const url = {
  message: "Sign in",
  mode: "url",
  sessionId: "s",
  elicitationId: "e1",
  url: "https://example.com",
} as const;

test("guard objects have the official SDK's names and guard functions", () => {
  for (const [name, ours] of Object.entries({
    CreateElicitationRequest,
    CreateElicitationResponse,
    ElicitationPropertySchema,
    MultiSelectItems,
  })) {
    const theirs = (official as unknown as Record<string, object>)[name];
    assert.ok(theirs, `the SDK exports ${name}`);
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).sort(), name);
  }
  assert.deepEqual(Object.keys(unstable.MultiSelectItems), Object.keys(MultiSelectItems));
});

test("CreateElicitationRequest: form, url, custom; a malformed known variant matches nothing", () => {
  const req: CreateElicitationRequest = url;
  if (CreateElicitationRequest.isUrl(req))
    assert.equal(req.url, "https://example.com"); // narrows to the url payload
  else assert.fail("isUrl");
  assert.equal(CreateElicitationRequest.isForm(form), true);
  assert.equal(CreateElicitationRequest.isUrl(form), false);
  assert.equal(CreateElicitationRequest.isCustom(form), false);
  const custom = { message: "m", mode: "_vendor_oauth", requestId: 7 } as CreateElicitationRequest;
  assert.equal(CreateElicitationRequest.isCustom(custom), true);
  assert.equal(
    CreateElicitationRequest.isCustom({ message: "m", mode: "_x" } as CreateElicitationRequest),
    false,
    "needs a scope",
  );
  const broken = { ...url, url: 42 } as unknown as CreateElicitationRequest;
  assert.deepEqual(
    [
      CreateElicitationRequest.isUrl(broken),
      CreateElicitationRequest.isForm(broken),
      CreateElicitationRequest.isCustom(broken),
    ],
    [false, false, false],
  );
});

test("CreateElicitationResponse: accept, decline, cancel, custom", () => {
  assert.equal(
    CreateElicitationResponse.isAccept({ action: "accept", content: { name: "Ada", n: 3, tags: ["a"] } }),
    true,
  );
  assert.equal(
    CreateElicitationResponse.isAccept({ action: "accept", content: { bad: { nested: 1 } } } as never),
    false,
  );
  assert.equal(CreateElicitationResponse.isDecline({ action: "decline" }), true);
  assert.equal(CreateElicitationResponse.isCancel({ action: "decline" }), false);
  assert.equal(CreateElicitationResponse.isCustom({ action: "snooze", until: "later" }), true);
  assert.equal(CreateElicitationResponse.isCustom({ action: "cancel" }), false);
});

test("ElicitationPropertySchema and MultiSelectItems", () => {
  assert.equal(ElicitationPropertySchema.isString({ type: "string", format: "email" }), true);
  assert.equal(ElicitationPropertySchema.isString({ type: "string", enum: 5 } as never), false);
  assert.equal(ElicitationPropertySchema.isInteger({ type: "integer", minimum: 0 }), true);
  assert.equal(ElicitationPropertySchema.isNumber({ type: "integer" }), false);
  const multi = { type: "array", items: { type: "string", enum: ["a", "b"] } } as const;
  assert.equal(ElicitationPropertySchema.isArray(multi), true);
  assert.equal(ElicitationPropertySchema.isCustom({ type: "color", palette: "web" }), true);
  assert.equal(ElicitationPropertySchema.isCustom({ type: "boolean" }), false);
  assert.equal(MultiSelectItems.isString({ type: "string", enum: ["x"] }), true);
  assert.equal(MultiSelectItems.isTitled({ anyOf: [{ const: "x", title: "X" }] }), true);
  assert.equal(MultiSelectItems.isCustom({ type: "tags" }), true);
  assert.equal(MultiSelectItems.isCustom({ type: "string", enum: ["x"] }), false);
});
