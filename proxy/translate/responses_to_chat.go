package translate

// ResponsesToChat translates an OpenAI Responses request into an OpenAI chat
// completions request for upstreamModel, for upstreams that do not speak the
// Responses API. On a stream with includeUsage it asks for
// stream_options.include_usage, without which the stream carries no token
// counts.
//
// instructions become the first system message; input as a string becomes
// one user message. Input items become messages in order: system and
// developer messages system messages in place, user messages user messages
// (input_image an image_url part, input_file a file part), assistant
// messages and the function_call items that follow them one assistant
// message with tool_calls (call_id kept as the tool call id), and each
// function_call_output a tool message. Images and files in a tool output
// move to a user message after the run of tool messages, since OpenAI tool
// messages hold text only. Reasoning items are dropped: chat takes no
// reasoning back.
//
// Function tools keep name, description, parameters and strict (only when
// given: the Responses API's default strict true would make OpenAI check the
// schema's strict-mode rules, which the caller did not ask of chat);
// tool_choice keeps its meaning, allowed_tools by keeping only the tools it
// lists. max_output_tokens becomes max_completion_tokens, reasoning.effort
// reasoning_effort, text.format response_format, user (or
// safety_identifier) user. Stateful requests are refused (see
// refuseStateful); what is dropped is listed in droppedFields; what cannot
// be translated is refused with a *RequestError.
func ResponsesToChat(body []byte, upstreamModel string, includeUsage bool) ([]byte, error) {
	var req responsesRequest
	if err := decode(body, &req); err != nil {
		return nil, decodeError("the request", err)
	}
	if err := refuseStateful(&req); err != nil {
		return nil, err
	}
	entries, err := readInput(req.Instructions, req.Input)
	if err != nil {
		return nil, err
	}
	tools, choice, err := readTools(req.Tools, req.ToolChoice)
	if err != nil {
		return nil, err
	}
	format, err := textFormat(req.Text)
	if err != nil {
		return nil, err
	}
	out := responsesChatRequestOut{
		Model:               upstreamModel,
		Messages:            chatMessagesFromEntries(entries),
		MaxCompletionTokens: positive(req.MaxOutputTokens),
		Temperature:         req.Temperature,
		TopP:                req.TopP,
		Stream:              req.Stream,
		Tools:               chatToolsFromResponses(tools),
		ToolChoice:          chatToolChoice(choice),
		ResponseFormat:      format,
		User:                chatUser(firstNonEmpty(req.User, req.SafetyIdentifier)),
	}
	if req.Reasoning != nil {
		out.ReasoningEffort = req.Reasoning.Effort
	}
	if len(tools) > 0 { // OpenAI refuses parallel_tool_calls without tools
		out.ParallelToolCalls = req.ParallelToolCalls
	}
	if req.Stream && includeUsage {
		out.StreamOptions = &chatStreamOptions{IncludeUsage: true}
	}
	return marshal(out)
}

func positive(v *int64) *int64 {
	if v == nil || *v <= 0 {
		return nil
	}
	return v
}

// textFormat reads text.format as a chat response_format: nil for text or
// none, json_object as is, json_schema with its flat members moved under
// json_schema (name defaults to "output", which chat requires).
func textFormat(t *responsesText) (*chatResponseFormat, error) {
	if t == nil || t.Format == nil {
		return nil, nil
	}
	f := t.Format
	switch f.Type {
	case "text", "":
		return nil, nil
	case "json_object":
		return &chatResponseFormat{Type: "json_object"}, nil
	case "json_schema":
		return &chatResponseFormat{Type: "json_schema", JSONSchema: &chatJSONSchema{
			Name: firstNonEmpty(f.Name, "output"), Description: f.Description,
			Schema: objectOr(f.Schema, "{}"), Strict: f.Strict}}, nil
	}
	return nil, invalid("text.format.type", "unknown text format %q", f.Type)
}

func chatToolsFromResponses(tools []responsesTool) []responsesChatTool {
	if len(tools) == 0 {
		return nil
	}
	out := make([]responsesChatTool, len(tools))
	for i, t := range tools {
		out[i] = responsesChatTool{Type: "function", Function: responsesChatFunction{Name: t.Name,
			Description: t.Description, Parameters: objectOr(t.Parameters, emptySchema), Strict: t.Strict}}
	}
	return out
}

func chatToolChoice(c toolChoice) any {
	switch c.mode {
	case "":
		return nil
	case "function":
		var f chatToolChoiceFunction
		f.Type, f.Function.Name = "function", c.name
		return f
	}
	return c.mode // auto, none, required
}

// chatBuilder gathers chat messages; texts holds the texts of each system
// and assistant message, joined when the message is done.
type chatBuilder struct {
	msgs    []chatMessageOut
	texts   [][]string
	pending []chatPartOut // images and files of tool outputs, for a user message after them
}

func chatMessagesFromEntries(entries []inputEntry) []chatMessageOut {
	b := chatBuilder{msgs: make([]chatMessageOut, 0, len(entries)), texts: make([][]string, 0, len(entries))}
	for i := range entries {
		b.add(&entries[i])
	}
	b.flushPending()
	for i := range b.msgs {
		if len(b.texts[i]) > 0 {
			b.msgs[i].Content = textOrParts(b.texts[i])
		}
	}
	return b.msgs
}

func (b *chatBuilder) add(e *inputEntry) {
	if e.kind != entryOutput {
		b.flushPending()
	}
	switch e.kind {
	case entrySystem:
		if texts := e.texts(); len(texts) > 0 {
			b.push(chatMessageOut{Role: "system"}, texts)
		}
	case entryUser:
		b.push(chatMessageOut{Role: "user", Content: userContent(chatParts(e.parts))}, nil)
	case entryAssistant:
		if texts := e.texts(); len(texts) > 0 {
			i := b.assistant()
			b.texts[i] = append(b.texts[i], texts...)
		}
	case entryCall:
		i := b.assistant()
		b.msgs[i].ToolCalls = append(b.msgs[i].ToolCalls, chatToolCall{ID: e.callID, Type: "function",
			Function: chatFunctionCall{Name: e.name, Arguments: firstNonEmpty(e.arguments, "{}")}})
	case entryOutput:
		b.push(chatMessageOut{Role: "tool", ToolCallID: e.callID, Content: b.toolContent(e)}, nil)
	}
}

func (b *chatBuilder) push(m chatMessageOut, texts []string) {
	b.msgs = append(b.msgs, m)
	b.texts = append(b.texts, texts)
}

// assistant gives the index of the assistant message to add to: the last
// message if it is one (an assistant message and the calls after it were
// one chat message), else a new one.
func (b *chatBuilder) assistant() int {
	if n := len(b.msgs); n > 0 && b.msgs[n-1].Role == "assistant" {
		return n - 1
	}
	b.push(chatMessageOut{Role: "assistant"}, nil)
	return len(b.msgs) - 1
}

// toolContent gives a tool output's text, and keeps its images and files
// for the user message that follows the tool messages.
func (b *chatBuilder) toolContent(e *inputEntry) any {
	if e.asString {
		return e.parts[0].text
	}
	var texts []string
	for _, p := range chatParts(e.parts) {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		} else {
			b.pending = append(b.pending, p)
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return textOrParts(texts)
}

func (b *chatBuilder) flushPending() {
	if len(b.pending) > 0 {
		b.push(chatMessageOut{Role: "user", Content: b.pending}, nil)
		b.pending = nil
	}
}

// chatParts gives a message's parts as chat parts, empty texts left out.
func chatParts(parts []inputPart) []chatPartOut {
	out := make([]chatPartOut, 0, len(parts))
	for _, p := range parts {
		switch p.kind {
		case inputText:
			if p.text != "" {
				out = append(out, chatPartOut{Type: "text", Text: p.text})
			}
		case inputImage:
			out = append(out, chatPartOut{Type: "image_url", ImageURL: &chatImageURL{URL: p.text}})
		case inputFile:
			out = append(out, chatPartOut{Type: "file", File: &chatFile{FileData: p.fileData, Filename: p.filename}})
		}
	}
	return out
}
