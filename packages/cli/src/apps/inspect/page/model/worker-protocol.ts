/**
 * What the page and its client worker say to each other: the page's calls on the connection (`call`), the agent's
 * requests the worker needs answered by the page (`ask`: permission dialogs, forms, file and terminal methods served
 * by the inspector), and their answers. Errors travel as `{ code, message, data }`, as on the wire.
 */
export interface WireError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The connection methods the page calls. */
export type ClientMethod =
  | "newSession"
  | "loadSession"
  | "resumeSession"
  | "unstable_forkSession"
  | "listSessions"
  | "prompt"
  | "cancel"
  | "setSessionMode"
  | "setSessionConfigOption";

export type ToWorker =
  | {
      readonly type: "open";
      readonly host: string;
      readonly token: string;
      readonly key: string;
      readonly version: string;
    }
  | { readonly type: "call"; readonly id: number; readonly method: ClientMethod; readonly params: unknown }
  | { readonly type: "answer"; readonly id: number; readonly result?: unknown; readonly error?: WireError };

export type FromWorker =
  | { readonly type: "initialized"; readonly error?: WireError }
  | { readonly type: "result"; readonly id: number; readonly result?: unknown; readonly error?: WireError }
  | {
      readonly type: "ask";
      readonly id: number;
      readonly kind: "permission" | "elicitation" | "host";
      readonly method: string;
      readonly params: unknown;
    };

/** A wire error from anything thrown. */
export function toWireError(error: unknown): WireError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: typeof e?.code === "number" ? e.code : -32603,
    message: typeof e?.message === "string" ? e.message : String(error),
    ...(e?.data !== undefined ? { data: e.data } : {}),
  };
}
