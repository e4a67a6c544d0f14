import { samplesFor } from "./dist/src/protocol/testing/samples.js";
import { readJson } from "./dist/src/protocol/testing/repo.js";
import { v2Schemas } from "./dist/src/protocol/v2.js";
const doc = readJson("schema/v2/schema.json");
const s = samplesFor(doc, "Annotations");
for (const x of (s.valid ?? s).slice?.(0,3) ?? []) { console.log(JSON.stringify(x), JSON.stringify(v2Schemas.Annotations.check(x.value ?? x))); }
console.log(Object.keys(s));
