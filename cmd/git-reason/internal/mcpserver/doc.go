// Package mcpserver is git reason's MCP server: 'git reason mcp' serves one
// repository to any MCP host over stdio, or, with --http, over streamable
// HTTP behind the guard serve uses (package guard: a token always, loopback
// Host names, no browser origins, JSON, bounded, timeouts), with a token
// file of its own.
//
// One tool surface for every host. Each tool is declared once, in
// share/tools.yaml (validated by schemas/share.tools.json, read by
// ops.Tools): its name, a
// one-line description, the command line verb it projects and its
// execution policy. From that row come, at run time, the tool's
// annotations (readOnlyHint for read and analyze tools, destructiveHint
// false since records are append-only, idempotentHint, openWorldHint where
// advisors are contacted) and its _meta, which carries the policy verbatim
// under MetaKey. Hosts route with the policy; the server never assigns an
// executor.
//
// One write path. Every tool calls the same operations (package ops) as the
// command line, so every record goes through the one writer and its
// admission rules: a caller can no more claim a review, write a
// consultation or choose a plan's advisors here than on the command line.
// The input schema of each write tool is derived from its record kind's
// body schema (package schemas), plus the task; outputs are structured
// content (what 'git reason VERB --json' prints, with an output schema)
// and a short text; a result is held to the output schema tools/list
// gives for its tool before it is sent (schemas.Output), and one the
// schema refuses fails the call. Those output schemas are the top level
// of the documents handover's and context's --json publish, the envelope
// for a record, and inferred from the Go type a tool returns for the
// others, so that tools/list stays short. A tool whose verb's --json
// output publishes a document (schemas.Outputs) answers with that output
// (where the command prints a list, as for the status of every task, log,
// tasks and search, with that list as the answer's one member) and
// holds it to that whole document as well, as the command line does: a
// phase there is one of the phases, not any string. The schema tool,
// which wraps the documents it gives, and the write tools, whose records
// the writer has validated, are held to their output schemas only. The
// server never runs a command it was sent: validate records manual
// validations only.
//
// Declared, never sniffed. prepare_session negotiates HostCapabilities from
// the client's initialize capabilities and the facts the host states,
// with false for what neither says. The client's name and version are
// never read. The only thing capabilities change is suggested_next_tools
// (the task's derived next step as tool calls), which a successful answer
// carries only when native_tool_search is false.
//
// A person, or the agent. conclude records who answered a local-review
// checklist (derived answered_by; every record's derived says it was
// written through mcp). For a material or critical decision, when the host
// declared elicitation and approval_or_elicitation was not stated false,
// conclude first answers with one elicitation per item (MCP multi
// round-trip input requests; the SDK asks clients of older protocol
// versions itself), carrying a request state that binds the answers to
// that checklist (an HMAC under a key made at start, redeemed once):
// only answers to it are recorded as a person's. Otherwise the answers are
// the client's own, and every surface shows the plan as self-answered by
// an agent (elicit.go).
//
// Errors are tool errors whose structured content is {code, message,
// recovery_actions: [{tool, arguments}]}, deterministic and naming tools
// only: an unknown task recovers with assess, a refusal (or a write whose
// defaulted id has no record yet: validate before any conclusion) with the
// task's next step (resolve and the disagreement's id for a conclusion
// refused over an open disagreement), a task whose history does not read
// (a stored record that fails its schema, a task above
// reason.maxTaskBytes: said as the command line says it, never as the
// call's arguments) with verify of that task, a body the schema refuses
// with schema.
//
// consult reports each advisor's outcome as a progress notification when
// the call carries a progress token; a cancelled call ends every request
// and the outcomes are recorded as cancelled, as Ctrl-C does. Each task's
// markdown report is a resource, reason://task/{task}, listed and readable.
//
// Over stdio (Stdio) results are written as the SDK encoded them, not
// encoded a second time inside their envelope: the same bytes, encoded
// once (tools/list's answer is some 69 KB of schemas: BenchmarkToolsList's
// result-bytes, bench/mcp/run.sh 20 ToolsList).
//
// Calls on the shared repository session are serialised; consult opens a
// session of its own so that other calls go on while advisors answer.
package mcpserver
