// Which scenarios of the MCP conformance suite (@modelcontextprotocol/conformance) do not apply to
// Arbor, each with why. Every other scenario the suite lists applies, and must pass: a scenario the
// suite adds counts as applicable until it is decided on here.
//
// Most server scenarios test the suite's reference server ("everything"-style fixtures), not the
// protocol: they call a tool, read a resource or get a prompt by its fixture name (test_simple_text,
// test://static-text, test_simple_prompt, …) and check what that fixture answers. Arbor's /mcp serves
// Arbor's own tools (run_prompt, start_run, read_session, answer_permission, …), its sessions and
// traces as arbor:// resources and its agents as prompts; it does not carry the suite's fixtures, so
// those scenarios say nothing about it. The protocol behaviour they touch on is tested on Arbor's own
// tools, resources and prompts in packages/server/test (mcp-endpoint, mcp-resources, mcp-tasks,
// mcp-cluster).

/** Server scenarios (against `/mcp` of `arbor serve`) that do not apply, by name: the reason. */
export const SERVER_NOT_APPLICABLE = {
  // Both "pass" against Arbor only because Arbor's answer to an unknown tool is an isError result with
  // text, which is all these checks look at: a pass would say nothing, so neither is counted.
  "tools-call-simple-text": "calls the fixture tool test_simple_text (Arbor's unknown-tool answer happens to satisfy it)",
  "tools-call-error": "calls the fixture tool test_error_handling (Arbor's unknown-tool answer happens to satisfy it)",
  "tools-call-image": "calls the fixture tool test_image_content; Arbor's tools answer text and JSON",
  "tools-call-audio": "calls the fixture tool test_audio_content; Arbor's tools answer text and JSON",
  "tools-call-embedded-resource": "calls the fixture tool test_embedded_resource",
  "tools-call-mixed-content": "calls the fixture tool test_multiple_content_types",
  "tools-call-with-logging": "calls the fixture tool test_tool_with_logging",
  // Progress itself applies: run_prompt reports it for a request's progress token (mcp-endpoint.test.ts).
  "tools-call-with-progress": "calls the fixture tool test_tool_with_progress",
  "tools-call-sampling": "calls the fixture tool test_sampling; Arbor's server never asks the client's model",
  // Arbor's runs ask through list_pending/answer_permission/answer_question, durable in its store.
  "tools-call-elicitation": "calls the fixture tool test_elicitation",
  "elicitation-sep1034-defaults": "calls the fixture tool test_elicitation_sep1034_defaults",
  "elicitation-sep1330-enums": "calls the fixture tool test_elicitation_sep1330_enums",
  "json-schema-2020-12": "looks for the fixture tool json_schema_2020_12_tool in tools/list",
  "server-sse-polling": "calls the fixture tool test_reconnection, which closes its stream mid-call",
  // Completion itself applies: Arbor completes its prompts' and resource templates' arguments
  // (mcp-resources.test.ts), and answers an unknown prompt with -32602 as the spec's error table has it.
  "completion-complete": "completes an argument of the fixture prompt test_prompt_with_arguments",
  "resources-read-text": "reads the fixture resource test://static-text",
  "resources-read-binary": "reads the fixture resource test://static-binary",
  "resources-templates-read": "reads the fixture template test://template/{id}/data",
  // Subscribing itself applies: arbor://sessions/… subscriptions notify on new entries
  // (mcp-resources.test.ts, and across cluster instances in mcp-cluster.test.ts); a URI that names
  // no resource of Arbor's is refused with -32002 (resource not found), as the spec's error table has it.
  "resources-subscribe": "subscribes to the fixture resource test://watched-resource",
  "resources-unsubscribe": "subscribes to the fixture resource test://watched-resource first",
  "prompts-get-simple": "gets the fixture prompt test_simple_prompt",
  "prompts-get-with-args": "gets the fixture prompt test_prompt_with_arguments",
  "prompts-get-embedded-resource": "gets the fixture prompt test_prompt_with_embedded_resource",
  "prompts-get-with-image": "gets the fixture prompt test_prompt_with_image",
};

/** Client scenarios (Arbor's MCP client, through scripts/mcp-conformance-client.mjs) that do not apply. */
export const CLIENT_NOT_APPLICABLE = {
  // An "extension" scenario (SEP-990, enterprise-managed authorization): it starts from an ID token the
  // user got by signing in to an enterprise identity provider, exchanges it (RFC 8693) for an ID-JAG
  // and presents that with the JWT bearer grant. Arbor has no sign-in to an identity provider, and the
  // MCP SDK its client is built on has neither the token exchange nor the ID-JAG grant.
  "auth/cross-app-access-complete-flow":
    "needs an enterprise IdP sign-in and the ID-JAG grant (SEP-990), which the MCP SDK does not have",
};
