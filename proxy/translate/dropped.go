package translate

// droppedField is a request field that has no counterpart in the other
// protocol and is therefore left out of the translated request.
type droppedField struct {
	From   string // the caller's protocol the field is read from: "openai", "anthropic" or "responses"
	Path   string // the field; a plain name is a top-level member
	Reason string
}

// droppedFields is the one list of request fields dropped on purpose. The
// request types decode only what is translated, so a field listed here is
// simply never read; a field in neither place (one the APIs add later) is
// dropped the same way. Inputs that would change the shape or the meaning of
// the answer are not dropped but refused with a *RequestError: n > 1, legacy
// functions/function_call and role "function", audio input, files by id,
// unknown content types.
//
// It is a function rather than a variable so that the package keeps no
// mutable state; TestDroppedFieldsAreDropped holds the code to it.
func droppedFields() []droppedField {
	return []droppedField{
		// OpenAI caller, Anthropic upstream (Request(Chat, Messages)). As for an
		// Anthropic caller below, parentheses name the upstreams that drop
		// what Gemini or Converse keep.
		{"openai", "frequency_penalty", "Anthropic has no repetition penalties"},
		{"openai", "presence_penalty", "Anthropic has no repetition penalties"},
		{"openai", "logit_bias", "Anthropic has no token biasing"},
		{"openai", "logprobs", "Anthropic returns no log probabilities"},
		{"openai", "top_logprobs", "Anthropic returns no log probabilities"},
		{"openai", "seed", "Anthropic has no seeded sampling"},
		{"openai", "stream_options", "Anthropic streams always carry usage; the converter gives it to the caller when asked"},
		{"openai", "metadata", "OpenAI's stored-completion tags; Anthropic's metadata only holds user_id, taken from user"},
		{"openai", "store", "OpenAI's stored completions"},
		{"openai", "service_tier", "tiers are named and billed differently"},
		{"openai", "modalities", "Anthropic answers in text only"},
		{"openai", "audio", "Anthropic answers in text only"},
		{"openai", "prediction", "Anthropic has no predicted outputs"},
		{"openai", "web_search_options", "OpenAI's built-in search; Anthropic's is a server tool the caller did not ask for"},
		{"openai", "verbosity", "no Anthropic counterpart"},
		{"openai", "prompt_cache_key", "Anthropic caches at cache_control breakpoints, not by key"},
		{"openai", "prompt_cache_retention", "Anthropic caches at cache_control breakpoints, not by key"},
		{"openai", "moderation", "OpenAI's moderation of the answer"},
		{"openai", "reasoning_effort (to anthropic, converse)", "turning on Anthropic thinking would make Anthropic demand signed thinking blocks back in later tool-use turns, which an OpenAI caller cannot send (Converse would also have to ask in Claude-only fields); Gemini turns it into thoughts (thinkingConfig)"},
		{"openai", "top_k (to anthropic, converse)", "not an OpenAI field: compatible servers take it, and Gemini as topK; Converse would have to send it in Claude-only additionalModelRequestFields"},
		{"openai", "response_format (type json_object)", "Anthropic has JSON output only with a schema; json_schema is translated to output_config.format"},
		{"openai", "response_format.json_schema.name, description, strict", "Anthropic's output format holds only the schema, and is always strict"},
		{"openai", "tools[].function.strict", "Anthropic's strict tools need a beta; the schema still goes"},
		{"openai", "messages[].name", "Anthropic messages have no author names"},
		{"openai", "messages[].content[].image_url.detail", "Anthropic picks the resolution itself"},
		{"openai", "messages[assistant].reasoning_content, audio", "Anthropic thinking blocks need Anthropic's signature"},

		// Anthropic caller, OpenAI upstream (Request(Messages, Chat)). Where Gemini or
		// Converse keep what chat drops, the path names the upstreams that
		// drop it in parentheses, and the reason says what the others do.
		{"anthropic", "top_k (to chat)", "OpenAI has no top-k sampling; Gemini takes it as topK, Converse in additionalModelRequestFields (not beside thinking, which Claude refuses)"},
		{"anthropic", "context_management", "OpenAI keeps no server-side context to edit"},
		{"anthropic", "container", "Anthropic's code-execution containers"},
		{"anthropic", "mcp_servers", "Anthropic's server-side MCP connector"},
		{"anthropic", "service_tier", "tiers are named and billed differently"},
		{"anthropic", "inference_geo", "no OpenAI counterpart"},
		{"anthropic", "output_config.effort", "OpenAI's reasoning_effort is refused by non-reasoning models, and Claude Code sends effort on every request"},
		{"anthropic", "thinking (type adaptive or disabled)", "the model's default reasoning is the nearest OpenAI equivalent; type enabled becomes reasoning_effort"},
		{"anthropic", "cache_control (system, messages, tools) (to chat, gemini)", "OpenAI caches prompt prefixes automatically, Gemini implicitly or by cachedContents; Converse writes a cachePoint after each breakpoint"},
		{"anthropic", "messages[].content[].content[].cache_control (all)", "a breakpoint inside a tool result's content: Converse has no cachePoint there"},
		{"anthropic", "tools[] with a server type (bash_…, text_editor_…, web_search_…, computer_…, code_execution_…)", "they run on Anthropic's side"},
		{"anthropic", "tools[].strict, defer_loading, input_examples", "no OpenAI chat counterpart; name, description and schema go"},
		{"anthropic", "messages[assistant].content[] thinking, redacted_thinking (to chat, gemini; unsigned thinking everywhere)", "OpenAI takes no reasoning back, Gemini none of another model's; Converse sends signed ones back as reasoningContent when thinking is on"},
		{"anthropic", "messages[assistant].content[] server_tool_use, *_tool_result, mcp_tool_use, mcp_tool_result", "results of server tools OpenAI cannot run"},
		{"anthropic", "messages[].content[].citations, document citations and context", "OpenAI has no citations"},
		{"anthropic", "tool_result.is_error", "OpenAI tool messages have no error flag; the content still goes"},

		// Responses caller, OpenAI chat or Anthropic upstream (Request(Responses, Chat),
		// Request(Responses, Messages)). The path names the target in parentheses: to
		// chat, to anthropic, or both.
		{"responses", "include (both)", "asks OpenAI for extra output; reasoning items carry Anthropic's signed thinking whether asked or not"},
		{"responses", "metadata (both)", "tags of stored responses, and no response is stored"},
		{"responses", "prompt_cache_key (both)", "Anthropic caches at cache_control breakpoints; OpenAI caches prefixes without it, and compatible servers may refuse it"},
		{"responses", "prompt_cache_retention (both)", "as prompt_cache_key"},
		{"responses", "service_tier (both)", "tiers are named and billed differently"},
		{"responses", "truncation (both)", "auto lets OpenAI drop the conversation's start; the upstream gets all of it, and refuses what does not fit (the gateway's context-window fallbacks act on that)"},
		{"responses", "top_logprobs (both)", "the translated answers carry no log probabilities"},
		{"responses", "max_tool_calls (both)", "it limits built-in tools, which are dropped"},
		{"responses", "stream_options (both)", "OpenAI's obfuscation of stream deltas"},
		{"responses", "text.verbosity (both)", "no counterpart that every upstream accepts"},
		{"responses", "reasoning.summary (both)", "reasoning comes back as a summary whenever the upstream gives any"},
		{"responses", "tools[] of a built-in type: web_search…, file_search, code_interpreter, image_generation, computer_use…, mcp, local_shell, shell, apply_patch, tool_search (both)", "they run on OpenAI's side"},
		{"responses", "tools[] of type custom, freeform or with a grammar (both)", "no counterpart; Codex sends them only for OpenAI's own model names, and edits through its shell tool without them"},
		{"responses", "input[] items of built-in tools: web_search_call, file_search_call, code_interpreter_call, image_generation_call, computer_call(_output), mcp_*, tool_search_* (both)", "OpenAI ran them; the model's later text says what came of them"},
		{"responses", "input[].id and status of items (both)", "OpenAI's bookkeeping; call_id ties outputs to calls"},
		{"responses", "input[assistant].phase (both)", "labels commentary for OpenAI's Codex models only"},
		{"responses", "input[].content[].detail of input_image (both)", "the upstream picks the resolution itself"},
		{"responses", "input[] reasoning items (to chat)", "chat takes no reasoning back"},
		{"responses", "input[] reasoning items not written by this package from Anthropic thinking, and all of them with thinking off (to anthropic)", "OpenAI's encrypted reasoning can be read only by OpenAI"},
		{"responses", "tools[].strict (to anthropic)", "Anthropic's strict tools need a beta; the schema still goes"},
		{"responses", "text.format of type json_object (to anthropic)", "Anthropic has JSON output only with a schema; json_schema becomes output_config.format"},
		{"responses", "text.format name, description, strict (to anthropic)", "Anthropic's output format holds only the schema, and is always strict"},
		{"responses", "temperature, top_p with thinking on (to anthropic)", "Anthropic refuses them beside thinking"},
		{"responses", "reasoning.effort where thinking cannot be on (to anthropic)", "a forced tool_choice, a max_output_tokens too small for a budget, or a last tool-use turn without its thinking: see thinkingBudget"},
	}
}
