/**
 * JSON examples from the ACP documentation (agentclientprotocol.com, the snapshot in the project brief), copied
 * verbatim: params of each request/notification, results, and bare values. They predate parts of the current schema;
 * `outdated` names the path where an example disagrees with the schema: `current_mode_update.modeId` (the schema now
 * says `currentModeId`), and a permission request whose tool call `content` holds a bare text block where the schema
 * wants a `{ "type": "content", "content": {...} }` wrapper (lenient parse keeps it as an unknown variant).
 */
export interface DocExample {
  doc: string;
  method?: string;
  def?: string;
  value: unknown;
  outdated?: string;
}

export const DOC_EXAMPLES: DocExample[] = [
  {
    doc: "Creating Plans",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "plan",
        entries: [
          { content: "Analyze the existing codebase structure", priority: "high", status: "pending" },
          { content: "Identify components that need refactoring", priority: "high", status: "pending" },
          { content: "Create unit tests for critical functions", priority: "medium", status: "pending" },
        ],
      },
    },
  },
  { doc: "Text Content", def: "ContentBlock", value: { type: "text", text: "What's the weather like today?" } },
  {
    doc: "Image Content",
    def: "ContentBlock",
    value: { type: "image", mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB..." },
  },
  {
    doc: "Audio Content",
    def: "ContentBlock",
    value: { type: "audio", mimeType: "audio/wav", data: "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAAB..." },
  },
  {
    doc: "Embedded Resource",
    def: "ContentBlock",
    value: {
      type: "resource",
      resource: {
        uri: "file:///home/user/script.py",
        mimeType: "text/x-python",
        text: "def hello():\n    print('Hello, world!')",
      },
    },
  },
  {
    doc: "Resource Link",
    def: "ContentBlock",
    value: {
      type: "resource_link",
      uri: "file:///home/user/document.pdf",
      name: "document.pdf",
      mimeType: "application/pdf",
      size: 1024000,
    },
  },
  {
    doc: "The `_meta` Field",
    method: "session/prompt",
    value: {
      sessionId: "sess_abc123def456",
      prompt: [{ type: "text", text: "Hello, world!" }],
      _meta: { "zed.dev/debugMode": true },
    },
  },
  { doc: "Custom Requests", def: "Error", value: { code: -32601, message: "Method not found" } },
  {
    doc: "Advertising Custom Capabilities",
    def: "InitializeResponse",
    value: {
      protocolVersion: 1,
      agentCapabilities: { loadSession: true, _meta: { "zed.dev": { workspace: true, fileNotifications: true } } },
    },
  },
  {
    doc: "Checking Support",
    def: "InitializeResponse",
    value: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } },
  },
  {
    doc: "Reading Files",
    method: "fs/read_text_file",
    value: { sessionId: "sess_abc123def456", path: "/home/user/project/src/main.py", line: 10, limit: 50 },
  },
  {
    doc: "Reading Files",
    def: "ReadTextFileResponse",
    value: { content: "def hello_world():\n    print('Hello, world!')\n" },
  },
  {
    doc: "Writing Files",
    method: "fs/write_text_file",
    value: {
      sessionId: "sess_abc123def456",
      path: "/home/user/project/config.json",
      content: '{\n  "debug": true,\n  "version": "1.0.0"\n}',
    },
  },
  { doc: "Writing Files", def: "WriteTextFileResponse", value: null },
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
  {
    doc: "Advertising commands",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "available_commands_update",
        availableCommands: [
          { name: "web", description: "Search the web for information", input: { hint: "query to search for" } },
          { name: "test", description: "Run tests for the current project" },
          {
            name: "plan",
            description: "Create a detailed implementation plan",
            input: { hint: "description of what to plan" },
          },
        ],
      },
    },
  },
  {
    doc: "Running commands",
    method: "session/prompt",
    value: { sessionId: "sess_abc123def456", prompt: [{ type: "text", text: "/web agent client protocol" }] },
  },
  {
    doc: "Checking Support",
    def: "InitializeResponse",
    value: { protocolVersion: 1, clientCapabilities: { terminal: true } },
  },
  {
    doc: "Executing Commands",
    method: "terminal/create",
    value: {
      sessionId: "sess_abc123def456",
      command: "npm",
      args: ["test", "--coverage"],
      env: [{ name: "NODE_ENV", value: "test" }],
      cwd: "/home/user/project",
      outputByteLimit: 1048576,
    },
  },
  { doc: "Executing Commands", def: "CreateTerminalResponse", value: { terminalId: "term_xyz789" } },
  {
    doc: "Embedding in Tool Calls",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "call_002",
        title: "Running tests",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "term_xyz789" }],
      },
    },
  },
  {
    doc: "Getting Output",
    method: "terminal/output",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  {
    doc: "Getting Output",
    def: "TerminalOutputResponse",
    value: {
      output: "Running tests...\n✓ All tests passed (42 total)\n",
      truncated: false,
      exitStatus: { exitCode: 0, signal: null },
    },
  },
  {
    doc: "Waiting for Exit",
    method: "terminal/wait_for_exit",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  { doc: "Waiting for Exit", def: "WaitForTerminalExitResponse", value: { exitCode: 0, signal: null } },
  {
    doc: "Killing Commands",
    method: "terminal/kill",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  {
    doc: "Releasing Terminals",
    method: "terminal/release",
    value: { sessionId: "sess_abc123def456", terminalId: "term_xyz789" },
  },
  {
    doc: "Creating",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "call_001",
        title: "Reading configuration file",
        kind: "read",
        status: "pending",
      },
    },
  },
  {
    doc: "Updating",
    method: "session/update",
    value: {
      sessionId: "sess_abc123def456",
      update: {
        sessionUpdate: "tool_call_update",
        toolCallId: "call_001",
        status: "in_progress",
        content: [{ type: "content", content: { type: "text", text: "Found 3 configuration files..." } }],
      },
    },
  },
  {
    doc: "Requesting Permission",
    method: "session/request_permission",
    value: {
      sessionId: "sess_abc123def456",
      toolCall: { toolCallId: "call_001" },
      options: [
        { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
        { optionId: "reject-once", name: "Reject", kind: "reject_once" },
      ],
    },
  },
  {
    doc: "Requesting Permission",
    def: "RequestPermissionResponse",
    value: { outcome: { outcome: "selected", optionId: "allow-once" } },
  },
  { doc: "Requesting Permission", def: "RequestPermissionResponse", value: { outcome: { outcome: "cancelled" } } },
  {
    doc: "Regular Content",
    def: "ToolCallContent",
    value: { type: "content", content: { type: "text", text: "Analysis complete. Found 3 issues." } },
  },
  {
    doc: "Diffs",
    def: "ToolCallContent",
    value: {
      type: "diff",
      path: "/home/user/project/src/config.json",
      oldText: '{\n  "debug": false\n}',
      newText: '{\n  "debug": true\n}',
    },
  },
  { doc: "Terminals", def: "ToolCallContent", value: { type: "terminal", terminalId: "term_xyz789" } },
  { doc: "Following the Agent", def: "ToolCallLocation", value: { path: "/home/user/project/src/main.py", line: 42 } },
];
