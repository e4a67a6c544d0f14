/**
 * Runs every emitter for the stable and the unstable schema and returns the generated files by name.
 */
import { CAPABILITY_GATES, V2_CAPABILITY_GATES } from "./capabilities.js";
import { emitGuards } from "./guards-emitter.js";
import { type Meta, deriveMethods } from "./methods.js";
import { emitMethods } from "./methods-emitter.js";
import { emitUnstableExtras, emitV2UnstableExtras } from "./unstable-extras.js";
import { NES_SCHEMA_FILE, nesMethods, nesSubset } from "./nes.js";
import type { Outputs } from "./output.js";
import { loadJson, loadSchema } from "./schema.js";
import { emitTypes } from "./types-emitter.js";
import { emitValidators } from "./validator-emitter.js";

interface Flavour {
  schemaFile: string;
  metaFile: string;
  /** The meta.json whose methods are "stable" for this flavour. */
  stableMetaFile: string;
  suffix: string;
  schemasName: string;
  interfaceName: string;
  kind: string;
  gates: typeof CAPABILITY_GATES;
}

const V1_META = "schema/v1/meta.json";
const V2_META = "schema/v2/meta.json";

const FLAVOURS: Flavour[] = [
  {
    schemaFile: "schema/v1/schema.json",
    metaFile: V1_META,
    stableMetaFile: V1_META,
    suffix: "",
    schemasName: "schemas",
    interfaceName: "Schemas",
    kind: "stable",
    gates: CAPABILITY_GATES,
  },
  {
    schemaFile: "schema/v1/schema.unstable.json",
    metaFile: "schema/v1/meta.unstable.json",
    stableMetaFile: V1_META,
    suffix: ".unstable",
    schemasName: "unstableSchemas",
    interfaceName: "UnstableSchemas",
    kind: "unstable",
    gates: CAPABILITY_GATES,
  },
  // Protocol v2 (draft): its own types, table and validators; the names repeat v1's with other shapes.
  {
    schemaFile: "schema/v2/schema.json",
    metaFile: V2_META,
    stableMetaFile: V2_META,
    suffix: ".v2",
    schemasName: "v2Schemas",
    interfaceName: "V2Schemas",
    kind: "protocol v2 draft, stable part",
    gates: V2_CAPABILITY_GATES,
  },
  {
    schemaFile: "schema/v2/schema.unstable.json",
    metaFile: "schema/v2/meta.unstable.json",
    stableMetaFile: V2_META,
    suffix: ".v2.unstable",
    schemasName: "v2UnstableSchemas",
    interfaceName: "V2UnstableSchemas",
    kind: "protocol v2 draft, unstable",
    gates: V2_CAPABILITY_GATES,
  },
];

export function generateAll(repoRoot: string): Outputs {
  const outputs: Outputs = new Map();
  const stableMeta = loadJson<Meta>(repoRoot, V1_META).value;
  const usedGates = new Set<string>();
  const usedV2Gates = new Set<string>();
  for (const f of FLAVOURS) {
    const schema = loadSchema(repoRoot, f.schemaFile);
    const meta = loadJson<Meta>(repoRoot, f.metaFile);
    const flavourStableMeta = loadJson<Meta>(repoRoot, f.stableMetaFile).value;
    outputs.set(`types${f.suffix}.ts`, emitTypes(schema, `TypeScript types for every $defs entry (${f.kind}).`));
    const used = f.gates === CAPABILITY_GATES ? usedGates : usedV2Gates;
    const stableSchema = f.gates === V2_CAPABILITY_GATES ? loadSchema(repoRoot, "schema/v2/schema.json") : undefined;
    const specs = deriveMethods(schema, meta.value, flavourStableMeta, used, f.gates, stableSchema);
    const sources = [schema, { file: f.metaFile, sha256: meta.sha256 }];
    outputs.set(`methods${f.suffix}.ts`, emitMethods(specs, meta.value, sources, `./types${f.suffix}.js`));
    const validators = emitValidators(schema, f.schemasName, f.interfaceName, f.suffix);
    outputs.set(`validators${f.suffix}.ts`, validators.code);
    outputs.set(`checkers${f.suffix}.ts`, validators.checkers);
    outputs.set(`guards${f.suffix}.ts`, emitGuards(schema, validators.guards, f.suffix));
  }
  outputs.set("unstable-extras.ts", emitUnstableExtras(repoRoot));
  outputs.set("v2-unstable-extras.ts", emitV2UnstableExtras(repoRoot));
  // NES and document sync, from the kept August 2026 unstable schema (see ./nes.ts).
  const kept = loadSchema(repoRoot, NES_SCHEMA_FILE);
  const keptMeta = loadJson<Meta>(repoRoot, "schema/v1/meta.unstable.json");
  const nes = nesSubset(kept);
  outputs.set(
    "types.nes.ts",
    emitTypes(nes, "TypeScript types of Next Edit Suggestions and document sync (experimental)."),
  );
  const nesSpecs = nesMethods(kept, keptMeta.value, stableMeta, usedGates);
  outputs.set(
    "methods.nes.ts",
    emitMethods(
      nesSpecs,
      keptMeta.value,
      [kept, { file: "schema/v1/meta.unstable.json", sha256: keptMeta.sha256 }],
      "./types.nes.js",
    ),
  );
  const nesValidators = emitValidators(nes, "nesSchemas", "NesSchemas", ".nes");
  outputs.set("validators.nes.ts", nesValidators.code);
  outputs.set("checkers.nes.ts", nesValidators.checkers);
  const unused = [
    ...Object.keys(CAPABILITY_GATES).filter((m) => !usedGates.has(m)),
    ...Object.keys(V2_CAPABILITY_GATES)
      .filter((m) => !usedV2Gates.has(m))
      .map((m) => `${m} (v2)`),
  ];
  if (unused.length)
    throw new Error(`scripts/generate/capabilities.ts names methods no schema has: ${unused.join(", ")}`);
  return outputs;
}
