package translate

// droppedField is a request field that has no counterpart in the other
// protocol and is therefore left out of the translated request.
type droppedField struct {
	From   string // the caller's protocol the field is read from: "openai" or "anthropic"
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
		// OpenAI caller, Anthropic upstream (ChatToMessages).
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
		{"openai", "reasoning_effort", "turning on Anthropic thinking would make Anthropic demand signed thinking blocks back in later tool-use turns, which an OpenAI caller cannot send"},
		{"openai", "response_format (type json_object)", "Anthropic has JSON output only with a schema; json_schema is translated to output_config.format"},
		{"openai", "response_format.json_schema.name, description, strict", "Anthropic's output format holds only the schema, and is always strict"},
		{"openai", "tools[].function.strict", "Anthropic's strict tools need a beta; the schema still goes"},
		{"openai", "messages[].name", "Anthropic messages have no author names"},
		{"openai", "messages[].content[].image_url.detail", "Anthropic picks the resolution itself"},
		{"openai", "messages[assistant].reasoning_content, audio", "Anthropic thinking blocks need Anthropic's signature"},

		// Anthropic caller, OpenAI upstream (MessagesToChat).
		{"anthropic", "top_k", "OpenAI has no top-k sampling"},
		{"anthropic", "context_management", "OpenAI keeps no server-side context to edit"},
		{"anthropic", "container", "Anthropic's code-execution containers"},
		{"anthropic", "mcp_servers", "Anthropic's server-side MCP connector"},
		{"anthropic", "service_tier", "tiers are named and billed differently"},
		{"anthropic", "inference_geo", "no OpenAI counterpart"},
		{"anthropic", "output_config.effort", "OpenAI's reasoning_effort is refused by non-reasoning models, and Claude Code sends effort on every request"},
		{"anthropic", "thinking (type adaptive or disabled)", "the model's default reasoning is the nearest OpenAI equivalent; type enabled becomes reasoning_effort"},
		{"anthropic", "cache_control (system, messages, tools)", "OpenAI caches prompt prefixes automatically"},
		{"anthropic", "tools[] with a server type (bash_…, text_editor_…, web_search_…, computer_…, code_execution_…)", "they run on Anthropic's side"},
		{"anthropic", "tools[].strict, defer_loading, input_examples", "no OpenAI chat counterpart; name, description and schema go"},
		{"anthropic", "messages[assistant].content[] thinking, redacted_thinking", "OpenAI takes no reasoning back"},
		{"anthropic", "messages[assistant].content[] server_tool_use, *_tool_result, mcp_tool_use, mcp_tool_result", "results of server tools OpenAI cannot run"},
		{"anthropic", "messages[].content[].citations, document citations and context", "OpenAI has no citations"},
		{"anthropic", "tool_result.is_error", "OpenAI tool messages have no error flag; the content still goes"},
	}
}
