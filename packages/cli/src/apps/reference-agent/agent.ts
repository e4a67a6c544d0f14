/**
 * The reference agent (`acp agent`): the toolkit's agent (sessions, persistence and replay, prompt turns,
 * cancellation) declared with the reference agent's modes, the `model` config option, its slash commands and the
 * MCP connector. The toolkit keeps the contracts: session responses (`new`, `load`, `resume`) carry `modes` and
 * `configOptions`; the mode and model choice persist in the session's history and are restored on load and resume;
 * `available_commands_update` is sent right after each session response; MCP servers close with their session.
 * @see https://agentclientprotocol.com/protocol/session-modes
 * @see https://agentclientprotocol.com/protocol/slash-commands
 */
import { toolkitAgent, type ClientPort, type SessionStore } from "@acpkit/sdk/agent-toolkit";
import type { Agent } from "@acpkit/sdk";
import { slashCommands } from "./commands/index.js";
import { modelOption } from "./config-options.js";
import type { AgentSettings } from "./context.js";
import { DEFAULT_MODE, MODES } from "./modes.js";
import { promptHandler } from "./prompt.js";
import { restoreState, type RefState } from "./state.js";

export const AGENT_INFO = { name: "acpkit-reference-agent", title: "acp reference agent", version: "0.1.0" };

/** Builds the reference agent on `conn`, persisting sessions in `store`. */
export function referenceAgent(conn: ClientPort, store: SessionStore, settings: AgentSettings): Agent {
  return toolkitAgent<RefState>(conn, {
    store,
    logger: settings.logger,
    agentInfo: AGENT_INFO,
    promptCapabilities: { image: true, audio: true, embeddedContext: true },
    modes: [...MODES],
    currentModeId: DEFAULT_MODE,
    modeOption: false,
    configOptions: [modelOption(settings.model)],
    commands: slashCommands(settings),
    ...(settings.mcp !== undefined ? { mcp: settings.mcp } : {}),
    createState: ({ history }) => restoreState(history),
    titleFromPrompt: (text) => {
      const line = text.trim().split("\n", 1)[0]?.trim();
      if (!line || line.startsWith("/")) return undefined;
      return line.length > 80 ? `${line.slice(0, 79)}…` : line;
    },
    onPrompt: promptHandler(settings),
  });
}
