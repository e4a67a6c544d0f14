/** `acp check --help` texts. */
export const CHECK_USAGE = `acp check: conformance checks for ACP agents and clients

Usage:
  acp check agent [options] -- <agent command>
  acp check client [options] -- <client command containing {agent}>

Run "acp check agent --help" or "acp check client --help" for the options.
`;

const COMMON = `  --format FORMAT          table (default) | json | junit
  --only IDS               run only these scenarios (comma-separated; "cancel" or "cancel.*" selects a group)
  --skip IDS               leave these scenarios out
  --expected-failures FILE scenarios known to fail: one "<id> <reason>" per line; they do not fail the run
                           (XFAIL), but one that passes does (XPASS: the fault is fixed, remove its line)
  --timeout S              how long a prompt turn may take (default 30)
  --startup-timeout S      how long the agent has to answer initialize and session setup (default 30)
  --list                   list the scenarios with their spec links, and exit
  --verbose                report each scenario on stderr as it finishes
  -h, --help               this help

Exit codes: 0 every exercised check passed, 1 a check failed, 2 usage error, 3 the agent did not start.
`;

export const CHECK_AGENT_USAGE = `Usage: acp check agent [options] -- <agent command>

Launches the agent (its own process group, nothing left behind) once or more per scenario, drives it through the
protocol and checks every frame it writes against the schema and the protocol's rules. A capability the agent does
not advertise is skipped; what it cannot be made to do is "not exercised", never passed. Scenarios that need the
agent to act ask with the reference agent's slash commands (/stream N, /slow MS, /read PATH, /write PATH TEXT,
/run CMD); --prompts maps them to another agent's wording.

Options:
  --prompts FILE           JSON: scenario id -> prompt template ({count} {ms} {path} {text} {command} {word}),
                           or null to leave a scenario not exercised
  --auth METHOD            log in with this auth method (an id of the agent's authMethods) before the sessions
  --env NAME=VALUE         add to the agent's environment (repeatable), e.g. the credentials its login needs;
                           HOME and the XDG directories given this way replace the temporary ones
${COMMON}`;

export const CHECK_CLIENT_USAGE = `Usage: acp check client [options] -- <client command containing {agent}>

Runs the client once per scenario, with {agent} replaced by the command line of that scenario's scripted,
adversarial agent ({agent-argv} instead splices it in as separate arguments). The client must run one prompt turn
headless, e.g.:  acp check client -- acp exec --agent {agent} "hi"
                 acp check client --stdin "hi" -- acp chat --agent {agent}

Options:
  --stdin TEXT             written to the client's stdin ("\\n" separates lines); stdin is closed when the
                           scenario's turn is over
  --cancel-signal SIG      the signal that makes the client cancel a turn (default SIGINT, as Ctrl-C)
${COMMON}`;
