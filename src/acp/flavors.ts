/**
 * The protocol flavors a connection can speak, built from the generated method tables and validators: stable ACP
 * v1 and v1 with its unstable additions (and NES); protocol v2's are in ./v2-flavors.ts, loaded only by the v2
 * entries. A flavor is data; `AcpConnection` derives dispatch, validation and capability checks from it.
 */
import { METHOD_TABLE, schemas } from "../protocol/index.js";
import { NES_METHOD_TABLE, nesFlavorSchemas } from "../protocol/nes.js";
import { METHOD_TABLE as UNSTABLE_METHOD_TABLE, schemas as unstableSchemas } from "../protocol/unstable.js";
import { V1_CAPABILITY_FIELDS, type ProtocolFlavor } from "./flavor.js";

/** Stable ACP v1: the default of every connection and app. */
export const stableFlavor: ProtocolFlavor = Object.freeze({
  name: "stable",
  version: 1,
  methods: METHOD_TABLE,
  schemas,
  capabilitiesField: V1_CAPABILITY_FIELDS,
});

/** ACP v1 with its unstable additions (methods and fields that may still change): opt in with `unstable: true`. */
export const unstableFlavor: ProtocolFlavor = Object.freeze({
  name: "unstable",
  version: 1,
  methods: UNSTABLE_METHOD_TABLE,
  schemas: unstableSchemas,
  capabilitiesField: V1_CAPABILITY_FIELDS,
});

/**
 * The unstable protocol plus Next Edit Suggestions and document sync (`nes/*`, `document/*`), which the unstable
 * schema dropped and the official SDK keeps in its `experimental/nes` entry; `initialize` carries the NES capabilities.
 */
export const nesFlavor: ProtocolFlavor = Object.freeze({
  name: "nes",
  version: 1,
  capabilitiesField: V1_CAPABILITY_FIELDS,
  methods: Object.freeze([...UNSTABLE_METHOD_TABLE, ...NES_METHOD_TABLE]),
  schemas: nesFlavorSchemas,
});
