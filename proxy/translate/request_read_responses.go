package translate

// readResponsesRequest reads an OpenAI Responses request.
//
// instructions become the first system prompt; input as a string one user
// message. Input items become messages in order: system and developer
// messages system prompts in place, user messages user messages
// (input_image an image, input_file a file), a run of assistant messages,
// reasoning items and function_call items one assistant turn (call_id kept
// as the call's id), and each function_call_output a tool result. Reasoning
// items this package wrote for Anthropic thinking (see encodeThinking) are
// read as the signed thinking blocks they carry; other reasoning items are
// dropped.
//
// Function tools keep name, description, parameters and strict (only when
// given); tool_choice keeps its meaning, allowed_tools by keeping only the
// tools it lists. max_output_tokens is kept when positive, reasoning.effort
// as given, text.format as a response format, user (or safety_identifier)
// as the end user. Stateful requests are refused (see refuseStateful); what
// is dropped is listed in droppedFields; what cannot be read is refused
// with a *RequestError.
func readResponsesRequest(body []byte) (request, error) {
	var req responsesRequest
	if err := decode(body, &req); err != nil {
		return request{}, decodeError("the request", err)
	}
	if err := refuseStateful(&req); err != nil {
		return request{}, err
	}
	entries, err := readInput(req.Instructions, req.Input)
	if err != nil {
		return request{}, err
	}
	tools, choice, err := readTools(req.Tools, req.ToolChoice)
	if err != nil {
		return request{}, err
	}
	format, err := textFormat(req.Text)
	if err != nil {
		return request{}, err
	}
	out := request{
		maxTokens:   positive(req.MaxOutputTokens),
		temperature: req.Temperature,
		topP:        req.TopP,
		stream:      req.Stream,
		toolChoice:  choice,
		parallel:    req.ParallelToolCalls,
		user:        firstNonEmpty(req.User, req.SafetyIdentifier),
		format:      format,
		messages:    make([]message, 0, len(entries)),
		parts:       make([]part, 0, 2*len(entries)),
	}
	if req.Reasoning != nil {
		out.effort = req.Reasoning.Effort
	}
	if len(tools) > 0 {
		out.tools = make([]tool, len(tools))
		for i, t := range tools {
			out.tools[i] = tool{name: t.Name, description: t.Description, parameters: t.Parameters, strict: t.Strict}
		}
	}
	for i := 0; i < len(entries); {
		i = out.addEntries(entries, i)
	}
	return out, nil
}

// addEntries adds the entry at i, with the entries of its turn after it:
// a run of assistant messages, reasoning and calls is one assistant turn.
// It gives the index of the next entry.
func (r *request) addEntries(entries []inputEntry, i int) int {
	from := len(r.parts)
	e := &entries[i]
	switch e.kind {
	case entrySystem:
		r.parts = appendInputParts(r.parts, e.parts)
		r.add(message{role: roleSystem}, from)
	case entryUser:
		r.parts = appendInputParts(r.parts, e.parts)
		r.add(message{role: roleUser, asString: e.asString}, from)
	case entryOutput:
		r.parts = appendInputParts(r.parts, e.parts)
		asString := e.asString
		if !asString && !hasContent(r.parts[from:]) { // nothing to send: an empty text
			r.parts = append(r.parts[:from], part{kind: partText})
			asString = true
		}
		r.add(message{role: roleTool, asString: asString, callID: e.callID}, from)
	default:
		for ; i < len(entries) && r.addAssistantEntry(&entries[i]); i++ {
		}
		r.add(message{role: roleAssistant}, from)
		return i
	}
	return i + 1
}

// addAssistantEntry adds an entry of an assistant turn; false for an entry
// of another kind. Each entry adds at least one part (an assistant message
// without text an empty one): lastToolTurnThinks looks at the first.
func (r *request) addAssistantEntry(e *inputEntry) bool {
	switch e.kind {
	case entryAssistant:
		from := len(r.parts)
		r.parts = appendInputParts(r.parts, e.parts)
		if len(r.parts) == from {
			r.parts = append(r.parts, part{kind: partText})
		}
	case entryThinking:
		r.parts = append(r.parts, part{kind: partThinking, block: e.thinking})
	case entryCall:
		r.parts = append(r.parts, part{kind: partCall, id: e.callID, name: e.name, text: e.arguments})
	default:
		return false
	}
	return true
}

func appendInputParts(dst []part, parts []inputPart) []part {
	for _, p := range parts {
		switch p.kind {
		case inputText:
			dst = append(dst, part{kind: partText, text: p.text, param: p.param})
		case inputImage:
			dst = append(dst, part{kind: partImage, text: p.text, param: p.param})
		case inputFile:
			dst = append(dst, part{kind: partFile, text: p.fileData, name: p.filename, param: p.param})
		}
	}
	return dst
}

// hasContent reports whether parts hold a non-empty text or anything else.
func hasContent(parts []part) bool {
	for i := range parts {
		if parts[i].kind != partText || parts[i].text != "" {
			return true
		}
	}
	return false
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
