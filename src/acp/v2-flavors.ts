/**
 * The protocol v2 (draft) flavors, apart from ./flavors.ts so that only the v2 entries load v2's validators.
 */
import { METHOD_TABLE as V2_METHOD_TABLE, v2Schemas } from "../protocol/v2.js";
import { METHOD_TABLE as V2_UNSTABLE_METHOD_TABLE, v2UnstableSchemas } from "../protocol/v2-unstable.js";
import { V2_CAPABILITY_FIELDS, type ProtocolFlavor } from "./flavor.js";

/** Protocol v2 (draft), its stable part: the `@acpkit/sdk/experimental/v2` apps. */
export const v2Flavor: ProtocolFlavor = Object.freeze({
  name: "v2",
  version: 2,
  methods: V2_METHOD_TABLE,
  schemas: v2Schemas as unknown as ProtocolFlavor["schemas"],
  capabilitiesField: V2_CAPABILITY_FIELDS,
});

/** Protocol v2 (draft) with its unstable additions: the `@acpkit/sdk/experimental/v2/unstable` apps. */
export const v2UnstableFlavor: ProtocolFlavor = Object.freeze({
  name: "v2-unstable",
  version: 2,
  methods: V2_UNSTABLE_METHOD_TABLE,
  schemas: v2UnstableSchemas as unknown as ProtocolFlavor["schemas"],
  capabilitiesField: V2_CAPABILITY_FIELDS,
});
