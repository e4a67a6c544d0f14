/**
 * Modes and session config options, declared once for every session, kept per session. The toolkit answers
 * `session/set_mode` and `session/set_config_option`, puts `modes` and `configOptions` in new/load/resume
 * responses, sends `current_mode_update` / `config_option_update` on changes, and persists the values (an
 * agent-private `data` record) so load and resume restore them.
 * The spec: `session/set_config_option` MUST be answered with the complete option list; every option MUST have a
 * default; `type: "boolean"` options MUST NOT be sent unless the client advertised
 * `clientCapabilities.session.configOptions.boolean`; modes and the `category: "mode"` option SHOULD stay in sync.
 * @see https://agentclientprotocol.com/protocol/session-config-options
 * @see https://agentclientprotocol.com/protocol/session-modes
 */
import { RequestError } from "../../jsonrpc/index.js";
import type { MaybePromise } from "../../jsonrpc/messages.js";
import {
  hasCapability,
  type ClientCapabilities,
  type SessionConfigOption,
  type SessionModeState,
  type SessionUpdate,
} from "../../protocol/index.js";
import {
  checkModeId,
  modeSelectOption,
  modeState,
  modesFromOption,
  selectValues,
  validateModes,
  type ModeDeclaration,
  type ModeOptionLabel,
} from "./modes.js";
import type { SessionRecord } from "./session-store.js";
import type { ToolkitSession } from "./session.js";

/** A config option value: a select value id, or a boolean. */
export type ConfigValue = string | boolean;

/** Who made a change: the client (a request) or the agent (its own code). */
export type ChangeSource = "client" | "agent";

/** A mode change, before it takes effect. */
export interface ModeChange<S = unknown> {
  session: ToolkitSession<S>;
  modeId: string;
  previousModeId: string;
  source: ChangeSource;
}

/** A config option change, before it takes effect. */
export interface ConfigChange<S = unknown> {
  session: ToolkitSession<S>;
  configId: string;
  value: ConfigValue;
  previousValue: ConfigValue;
  source: ChangeSource;
}

/** What an agent declares once: its modes, its config options (their `currentValue` is the default), and hooks. */
export interface SessionSettingsDeclaration<S = unknown> {
  /** The modes. Without them, a `category: "mode"` select option (if declared) supplies them. */
  modes?: ModeDeclaration[];
  /** The mode new sessions start in. Default: the first mode. */
  currentModeId?: string;
  /**
   * The `category: "mode"` select option mirroring the modes, added first unless `configOptions` already has one.
   * `false`: send modes only.
   */
  modeOption?: ModeOptionLabel | false;
  /** Config options in priority order. Boolean ones reach only clients that advertised them. */
  configOptions?: SessionConfigOption[];
  /** Called before a mode change takes effect; throw (e.g. a `RequestError`) to refuse it. */
  onModeChange?: (change: ModeChange<S>) => MaybePromise<void>;
  /**
   * Called before a config option change takes effect (not for the mode option: see `onModeChange`); throw to refuse.
   */
  onConfigChange?: (change: ConfigChange<S>) => MaybePromise<void>;
}

/** The `data` record key under which settings persist. */
export const SETTINGS_RECORD_KEY = "acpkit.settings";

interface Resolved {
  modes: ModeDeclaration[];
  defaultModeId: string | undefined;
  modeOptionId: string | undefined;
  options: SessionConfigOption[];
}

/** Checks a declaration (throws on author errors) and resolves the mirrored mode option. */
export function resolveSettings<S>(declaration: SessionSettingsDeclaration<S>): Resolved {
  const options = (declaration.configOptions ?? []).map((option) => structuredClone(option));
  const ids = new Set<string>();
  for (const option of options) {
    if (ids.has(option.id)) throw new Error(`config option id "${option.id}" is declared twice`);
    ids.add(option.id);
    if (option.type === "select" && !selectValues(option).some((value) => value.value === option.currentValue)) {
      throw new Error(`config option "${option.id}": currentValue "${option.currentValue}" is not one of its values`);
    }
  }
  const declaredModeOption = options.find((option) => option.category === "mode" && option.type === "select");
  const modes = declaration.modes ?? (declaredModeOption ? modesFromOption(declaredModeOption) : []);
  validateModes(modes, declaration.currentModeId);
  const defaultModeId =
    declaration.currentModeId ?? (declaredModeOption?.currentValue as string | undefined) ?? modes[0]?.id;
  let modeOptionId: string | undefined;
  if (declaredModeOption !== undefined) {
    const values = selectValues(declaredModeOption).map((value) => value.value);
    if (values.join("\n") !== modes.map((mode) => mode.id).join("\n")) {
      throw new Error(`the "mode" category option "${declaredModeOption.id}" must list exactly the mode ids, in order`);
    }
    modeOptionId = declaredModeOption.id;
  } else if (modes.length > 0 && declaration.modeOption !== false) {
    const mirror = modeSelectOption(modes, defaultModeId!, declaration.modeOption || {});
    if (ids.has(mirror.id)) throw new Error(`the mode option id "${mirror.id}" collides with a declared config option`);
    options.unshift(mirror);
    modeOptionId = mirror.id;
  }
  if (modeOptionId !== undefined) options.find((option) => option.id === modeOptionId)!.currentValue = defaultModeId!;
  return { modes, defaultModeId, modeOptionId, options };
}

/** Whether the client advertised boolean config options (`session.configOptions.boolean`). */
export function supportsBooleanOptions(capabilities: ClientCapabilities | undefined): boolean {
  return hasCapability(capabilities, ["session", "configOptions", "boolean"]);
}

/** The modes and config option values of one session. Changes notify the client and persist. */
export class SessionSettings<S = unknown> {
  readonly #session: ToolkitSession<S>;
  readonly #declaration: SessionSettingsDeclaration<S>;
  readonly #resolved: Resolved;
  readonly #booleans: boolean;
  #modeId: string | undefined;
  readonly #values = new Map<string, ConfigValue>();

  /**
   * @param options.booleanOptions - whether the client takes boolean config options (`supportsBooleanOptions`);
   *   without them, boolean options are left out of what the client sees.
   * @param options.resolved - the declaration, already resolved (`resolveSettings`).
   */
  constructor(
    session: ToolkitSession<S>,
    declaration: SessionSettingsDeclaration<S>,
    options: { booleanOptions: boolean; resolved?: Resolved },
  ) {
    const booleans = options.booleanOptions;
    const resolved = options.resolved ?? resolveSettings(declaration);
    this.#session = session;
    this.#declaration = declaration;
    this.#resolved = resolved;
    this.#booleans = booleans;
    this.#modeId = resolved.defaultModeId;
    for (const option of resolved.options) this.#values.set(option.id, option.currentValue);
  }

  /** The current mode (undefined when no modes are declared). */
  get modeId(): string | undefined {
    return this.#modeId;
  }

  /** Whether this session has modes, and (visible) config options. */
  get hasModes(): boolean {
    return this.#resolved.modes.length > 0;
  }

  get hasConfigOptions(): boolean {
    return this.configOptions().length > 0;
  }

  /** The current value of a config option (undefined if unknown). */
  value(configId: string): ConfigValue | undefined {
    return this.#values.get(configId);
  }

  /** Every current value, by option id. */
  values(): Record<string, ConfigValue> {
    return Object.fromEntries(this.#values);
  }

  /** The `modes` of a session response, or undefined. */
  modeState(): SessionModeState | undefined {
    return this.#modeId === undefined ? undefined : modeState(this.#resolved.modes, this.#modeId);
  }

  /** The complete `configOptions` the client may see, with current values (booleans only if advertised). */
  configOptions(): SessionConfigOption[] {
    return this.#resolved.options
      .filter((option) => option.type !== "boolean" || this.#booleans)
      .map(
        (option) => ({ ...structuredClone(option), currentValue: this.#values.get(option.id)! }) as SessionConfigOption,
      );
  }

  /** The `modes` / `configOptions` fields of a new/load/resume response. */
  responseFields(): { modes?: SessionModeState; configOptions?: SessionConfigOption[] } {
    const fields: { modes?: SessionModeState; configOptions?: SessionConfigOption[] } = {};
    const modes = this.modeState();
    if (modes !== undefined) fields.modes = modes;
    const options = this.configOptions();
    if (options.length > 0) fields.configOptions = options;
    return fields;
  }

  /** Restores values persisted in `history` (the last settings record wins; stale ids and values are ignored). */
  restore(history: readonly SessionRecord[]): void {
    for (let i = history.length - 1; i >= 0; i--) {
      const record = history[i]!;
      if (record.kind !== "data" || typeof record.data !== "object" || record.data === null) continue;
      const saved = (record.data as Record<string, unknown>)[SETTINGS_RECORD_KEY] as
        { modeId?: unknown; values?: Record<string, unknown> } | undefined;
      if (saved === undefined) continue;
      if (typeof saved.modeId === "string" && this.#resolved.modes.some((mode) => mode.id === saved.modeId))
        this.#modeId = saved.modeId;
      for (const option of this.#resolved.options) {
        const value = saved.values?.[option.id];
        if (value !== undefined && this.#accepts(option, value)) this.#values.set(option.id, value as ConfigValue);
      }
      if (this.#resolved.modeOptionId !== undefined && this.#modeId !== undefined)
        this.#values.set(this.#resolved.modeOptionId, this.#modeId);
      return;
    }
  }

  /**
   * Changes the mode: -32602 for an unknown id; `onModeChange` may refuse. Sends `config_option_update` (the mirror
   * option changed) and, for an agent-made change, `current_mode_update`.
   */
  async setMode(modeId: string, source: ChangeSource = "agent"): Promise<void> {
    if (!this.hasModes) throw RequestError.invalidParams({ modeId }, "this session has no modes");
    checkModeId(this.#resolved.modes, modeId);
    const previousModeId = this.#modeId!;
    if (modeId === previousModeId) return;
    await this.#declaration.onModeChange?.({ session: this.#session, modeId, previousModeId, source });
    this.#applyMode(modeId);
    this.#persist();
    const updates: SessionUpdate[] = [];
    if (source === "agent") updates.push({ sessionUpdate: "current_mode_update", currentModeId: modeId });
    if (this.#resolved.modeOptionId !== undefined)
      updates.push({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
    await this.#notify(updates);
  }

  /**
   * Changes a config option: -32602 for an unknown id (boolean options count as unknown to clients that did not
   * advertise them) or a value that is not one of its values / not a boolean. Returns the complete option list.
   * Setting the mode option changes the mode (and sends `current_mode_update`).
   */
  async setConfigOption(
    configId: string,
    value: ConfigValue,
    source: ChangeSource = "agent",
  ): Promise<SessionConfigOption[]> {
    const option = this.#resolved.options.find(
      (candidate) => candidate.id === configId && (candidate.type !== "boolean" || this.#booleans),
    );
    if (option === undefined) {
      const known = this.configOptions().map((candidate) => candidate.id);
      throw RequestError.invalidParams(
        { configId, configOptions: known },
        `unknown config option "${configId}"; this session's options are: ${known.join(", ") || "(none)"}`,
      );
    }
    if (!this.#accepts(option, value)) {
      const expected =
        option.type === "boolean"
          ? 'a boolean (with type: "boolean")'
          : `one of ${selectValues(option)
              .map((v) => JSON.stringify(v.value))
              .join(", ")}`;
      throw RequestError.invalidParams(
        { configId, value },
        `invalid value ${JSON.stringify(value)} for config option "${configId}": expected ${expected}`,
      );
    }
    if (option.id === this.#resolved.modeOptionId) {
      const previousModeId = this.#modeId!;
      if (value !== previousModeId) {
        await this.#declaration.onModeChange?.({
          session: this.#session,
          modeId: value as string,
          previousModeId,
          source,
        });
        this.#applyMode(value as string);
        this.#persist();
        const updates: SessionUpdate[] = [{ sessionUpdate: "current_mode_update", currentModeId: value as string }];
        if (source === "agent")
          updates.push({ sessionUpdate: "config_option_update", configOptions: this.configOptions() });
        await this.#notify(updates);
      }
      return this.configOptions();
    }
    const previousValue = this.#values.get(configId)!;
    if (previousValue !== value) {
      await this.#declaration.onConfigChange?.({ session: this.#session, configId, value, previousValue, source });
      this.#values.set(configId, value);
      this.#persist();
      if (source === "agent")
        await this.#notify([{ sessionUpdate: "config_option_update", configOptions: this.configOptions() }]);
    }
    return this.configOptions();
  }

  #accepts(option: SessionConfigOption, value: unknown): boolean {
    if (option.type === "boolean") return typeof value === "boolean";
    return typeof value === "string" && selectValues(option).some((candidate) => candidate.value === value);
  }

  #applyMode(modeId: string): void {
    this.#modeId = modeId;
    if (this.#resolved.modeOptionId !== undefined) this.#values.set(this.#resolved.modeOptionId, modeId);
  }

  #persist(): void {
    this.#session.record({
      kind: "data",
      data: { [SETTINGS_RECORD_KEY]: { modeId: this.#modeId, values: this.values() } },
    });
  }

  /** Settings updates are not recorded for replay: the load/resume response carries the current state. */
  async #notify(updates: SessionUpdate[]): Promise<void> {
    for (const update of updates)
      await this.#session.client.notify("session/update", { sessionId: this.#session.sessionId, update });
  }
}
