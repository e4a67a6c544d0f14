import type { DocExample } from "./doc-examples.js";

/** The documentation's examples from the Initialization, Prompt Turn, Session Modes and Session Setup pages. */
export const SESSION_EXAMPLES: DocExample[] = [
  {
    doc: "Initialization",
    method: "initialize",
    value: {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    },
  },
  {
    doc: "Initialization",
    def: "InitializeResponse",
    value: {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, audio: true, embeddedContext: true },
        mcp: { http: true, sse: true },
      },
      authMethods: [],
    },
  },
  {
    doc: "1. User Message",
    method: "session/prompt",
    value: {
      sessionId: "sess_abc123def456",
      prompt: [
        { type: "text", text: "Can you analyze this code for potential issues?" },
        {
          type: "resource",
          resource: {
            uri: "file:///home/user/project/main.py",
            mimeType: "text/x-python",
            text: "def process_data(items):\n    for item in items:\n        print(item)",
          },
        },
      ],
    },
  },
  {
    doc: "3. Agent Reports Output",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "plan",
        entries: [
          { content: "Check for syntax errors", priority: "high", status: "pending" },
          { content: "Identify potential type issues", priority: "medium", status: "pending" },
          { content: "Review error handling patterns", priority: "medium", status: "pending" },
          { content: "Suggest improvements", priority: "low", status: "pending" },
        ],
      },
    },
  },
  {
    doc: "3. Agent Reports Output",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "I'll analyze your code for potential issues. Let me examine it..." },
      },
    },
  },
  {
    doc: "3. Agent Reports Output",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "call_001",
        title: "Analyzing Python code",
        kind: "other",
        status: "pending",
      },
    },
  },
  { doc: "4. Check for Completion", def: "PromptResponse", value: { stopReason: "end_turn" } },
  {
    doc: "5. Tool Invocation and Status Reporting",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: { sessionUpdate: "tool_call_update", toolCallId: "call_001", status: "in_progress" },
    },
  },
  {
    doc: "5. Tool Invocation and Status Reporting",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_001",
        status: "completed",
        content: [
          {
            type: "content",
            content: {
              type: "text",
              text:
                "Analysis complete:\n- No syntax errors found\n- Consider adding type hints for better " +
                "clarity\n- The function could benefit from error handling for empty lists",
            },
          },
        ],
      },
    },
  },
  { doc: "Cancellation", method: "session/cancel", value: { sessionId: "sess_abc123def456" } },
  {
    doc: "Initial state",
    def: "NewSessionResponse",
    value: {
      sessionId: "sess_abc123def456",
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask", description: "Request permission before making any changes" },
          {
            id: "architect",
            name: "Architect",
            description: "Design and plan software systems without implementation",
          },
          { id: "code", name: "Code", description: "Write and modify code with full tool access" },
        ],
      },
    },
  },
  { doc: "From the Client", method: "session/set_mode", value: { sessionId: "sess_abc123def456", modeId: "code" } },
  {
    doc: "From the Agent",
    method: "session/update",
    value: { sessionId: "sess_abc123def456", update: { sessionUpdate: "current_mode_update", modeId: "code" } },
    outdated: "$.update.currentModeId",
  },
  {
    outdated: "$.toolCall.content[0].type",
    doc: "Exiting plan modes",
    method: "session/request_permission",
    value: {
      sessionId: "sess_abc123def456",
      toolCall: {
        toolCallId: "call_switch_mode_001",
        title: "Ready for implementation",
        kind: "switch_mode",
        status: "pending",
        content: [{ type: "text", text: "## Implementation Plan..." }],
      },
      options: [
        { optionId: "code", name: "Yes, and auto-accept all actions", kind: "allow_always" },
        { optionId: "ask", name: "Yes, and manually accept actions", kind: "allow_once" },
        { optionId: "reject", name: "No, stay in architect mode", kind: "reject_once" },
      ],
    },
  },
  {
    doc: "Creating a Session",
    method: "session/new",
    value: {
      cwd: "/home/user/project",
      mcpServers: [{ name: "filesystem", command: "/path/to/mcp-server", args: ["--stdio"], env: [] }],
    },
  },
  { doc: "Creating a Session", def: "NewSessionResponse", value: { sessionId: "sess_abc123def456" } },
  {
    doc: "Checking Support",
    def: "InitializeResponse",
    value: { protocolVersion: 1, agentCapabilities: { loadSession: true } },
  },
  {
    doc: "Loading a Session",
    method: "session/load",
    value: {
      sessionId: "sess_789xyz",
      cwd: "/home/user/project",
      mcpServers: [{ name: "filesystem", command: "/path/to/mcp-server", args: ["--mode", "filesystem"], env: [] }],
    },
  },
  {
    doc: "Loading a Session",
    method: "session/update",
    value: {
      sessionId: "sess_789xyz",
      update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "What's the capital of France?" } },
    },
  },
  {
    doc: "Loading a Session",
    method: "session/update",
    value: {
      sessionId: "sess_789xyz",
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "The capital of France is Paris." },
      },
    },
  },
  { doc: "Loading a Session", def: "LoadSessionResponse", value: null },
  {
    doc: "Stdio Transport",
    def: "McpServer",
    value: {
      name: "filesystem",
      command: "/path/to/mcp-server",
      args: ["--stdio"],
      env: [{ name: "API_KEY", value: "secret123" }],
    },
  },
  {
    doc: "HTTP Transport",
    def: "McpServer",
    value: {
      type: "http",
      name: "api-server",
      url: "https://api.example.com/mcp",
      headers: [
        { name: "Authorization", value: "Bearer token123" },
        { name: "Content-Type", value: "application/json" },
      ],
    },
  },
  {
    doc: "SSE Transport",
    def: "McpServer",
    value: {
      type: "sse",
      name: "event-stream",
      url: "https://events.example.com/mcp",
      headers: [{ name: "X-API-Key", value: "apikey456" }],
    },
  },
  {
    doc: "Checking Transport Support",
    def: "InitializeResponse",
    value: { protocolVersion: 1, agentCapabilities: { mcpCapabilities: { http: true, sse: true } } },
  },
];
