package translate

// ResponsesToMessages translates an OpenAI Responses request into an
// Anthropic messages request for upstreamModel.
//
// instructions, and system and developer messages wherever they stand, are
// gathered in order into Anthropic's top-level system. Input items become
// turns: user messages user turns (input_image an image block, an inline PDF
// input_file a document block), assistant messages, reasoning items and
// function_call items assistant turns (call_id kept as the tool_use id), and
// function_call_output items tool_result blocks (call_id kept as
// tool_use_id) in the user turn that follows, first, as Anthropic requires;
// consecutive turns of one role merge. max_output_tokens becomes max_tokens
// (DefaultMaxTokens without one); temperature is clamped to 0..1 and a top_p
// of 1 or more left out, as in ChatToMessages; user (or safety_identifier)
// becomes metadata.user_id; a json_schema text.format becomes
// output_config.format. tool_choice auto, none, required and a named
// function become auto, none, any and tool; parallel_tool_calls false
// becomes disable_parallel_tool_use.
//
// reasoning.effort turns on thinking with a budget (see thinkingBudget),
// and reasoning items this package wrote for Anthropic thinking (see
// encodeThinking) go back as the signed thinking blocks they carry; other
// reasoning items are dropped. Stateful requests are refused (see
// refuseStateful); what is dropped is listed in droppedFields; what cannot
// be translated is refused with a *RequestError.
func ResponsesToMessages(body []byte, upstreamModel string) ([]byte, error) {
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
	budget, err := thinkingBudget(req.Reasoning, req.MaxOutputTokens, choice, entries)
	if err != nil {
		return nil, err
	}
	out := messagesThinkingRequestOut{messagesRequestOut: messagesRequestOut{
		Model:        upstreamModel,
		MaxTokens:    DefaultMaxTokens + budget,
		Temperature:  clampTemperature(req.Temperature),
		TopP:         usefulTopP(req.TopP),
		Stream:       req.Stream,
		Metadata:     userMetadata(firstNonEmpty(req.User, req.SafetyIdentifier)),
		OutputConfig: outputConfig(format),
	}}
	if v := positive(req.MaxOutputTokens); v != nil {
		out.MaxTokens = *v
	}
	if budget > 0 {
		// Anthropic refuses temperature and top_p other than the defaults with thinking.
		out.Thinking = &anthropicThinking{Type: "enabled", BudgetTokens: budget}
		out.Temperature, out.TopP = nil, nil
	}
	if out.System, out.Messages, err = messagesFromEntries(entries, budget > 0); err != nil {
		return nil, err
	}
	out.Tools, out.ToolChoice = anthropicToolsFromResponses(tools, choice, req.ParallelToolCalls)
	return marshal(out)
}

// Thinking budgets by reasoning.effort. The boundaries of reasoningEffort
// (the reverse mapping) put each back at its effort, and with the answer's
// DefaultMaxTokens on top, max_tokens stays within every thinking Claude
// model's output limit (Claude Opus 4's 32000 is the lowest).
const (
	minThinkingBudget    = 1024 // Anthropic's minimum
	lowThinkingBudget    = 4096
	mediumThinkingBudget = 16384
	highThinkingBudget   = 24576
)

// thinkingBudget gives the thinking budget for reasoning.effort: none
// (and no reasoning) 0, minimal 1024, low 4096, medium 16384, high and
// xhigh 24576. Thinking stays off where Anthropic would refuse it: with a
// tool_choice that forces a tool, with a max_output_tokens that leaves less
// than the minimum budget beside 1024 tokens of answer (else the budget is cut
// to fit), and when the conversation's last assistant turn calls tools
// without starting with a thinking block (Anthropic wants the thinking of a
// tool-use turn back; the caller could not send it if the turn came from
// another model).
func thinkingBudget(r *responsesReasoning, maxOut *int64, choice toolChoice, entries []inputEntry) (int64, error) {
	if r == nil {
		return 0, nil
	}
	var budget int64
	switch r.Effort {
	case "", "none":
		return 0, nil
	case "minimal":
		budget = minThinkingBudget
	case "low":
		budget = lowThinkingBudget
	case "medium":
		budget = mediumThinkingBudget
	case "high", "xhigh":
		budget = highThinkingBudget
	default:
		return 0, invalid("reasoning.effort", "unknown reasoning effort %q", r.Effort)
	}
	if choice.mode == "required" || choice.mode == "function" || !lastToolTurnThinks(entries) {
		return 0, nil
	}
	if v := positive(maxOut); v != nil {
		budget = min(budget, *v-1024)
	}
	if budget < minThinkingBudget {
		return 0, nil
	}
	return budget, nil
}

// lastToolTurnThinks reports whether the last assistant turn (a run of
// assistant messages, reasoning and calls) either calls no tool or starts
// with a thinking block.
func lastToolTurnThinks(entries []inputEntry) bool {
	first, calls := -1, false
	for i := len(entries) - 1; i >= 0; i-- {
		switch entries[i].kind {
		case entryAssistant, entryThinking, entryCall:
			first, calls = i, calls || entries[i].kind == entryCall
		case entrySystem: // goes to the top-level system: part of no turn
		default:
			if first >= 0 {
				return !calls || entries[first].kind == entryThinking
			}
		}
	}
	return first < 0 || !calls || entries[first].kind == entryThinking
}

func messagesFromEntries(entries []inputEntry, thinking bool) (system any, msgs []anthropicMessageOut, err error) {
	b := messagesBuilder{msgs: make([]anthropicMessageOut, 0, len(entries))}
	for i := range entries {
		if err := b.addEntry(&entries[i], thinking); err != nil {
			return nil, nil, err
		}
	}
	switch len(b.system) {
	case 0:
		return nil, b.msgs, nil
	case 1:
		return b.system[0].Text, b.msgs, nil
	}
	return b.system, b.msgs, nil
}

func (b *messagesBuilder) addEntry(e *inputEntry, thinking bool) error {
	switch e.kind {
	case entrySystem:
		for _, t := range e.texts() {
			b.system = append(b.system, textBlock{Type: "text", Text: t})
		}
	case entryUser:
		content, err := anthropicContent(e)
		if err == nil && !isEmpty(content) { // Anthropic refuses empty turns
			b.append("user", content)
		}
		return err
	case entryAssistant:
		for _, t := range e.texts() {
			b.append("assistant", []any{textBlock{Type: "text", Text: t}})
		}
	case entryThinking:
		if thinking {
			b.append("assistant", []any{e.thinking})
		}
	case entryCall:
		b.append("assistant", []any{toolUseBlock{Type: "tool_use", ID: e.callID, Name: e.name, Input: toolInput(e.arguments)}})
	case entryOutput:
		content, err := anthropicContent(e)
		if err == nil {
			b.append("user", []any{toolResultBlock{Type: "tool_result", ToolUseID: e.callID, Content: content}})
		}
		return err
	}
	return nil
}

// anthropicContent keeps a string a string and turns parts into blocks:
// text, image, and document for an inline PDF.
func anthropicContent(e *inputEntry) (any, error) {
	if e.asString {
		return e.parts[0].text, nil
	}
	blocks := make([]any, 0, len(e.parts))
	for _, p := range e.parts {
		switch p.kind {
		case inputText:
			if p.text != "" { // Anthropic refuses empty text blocks
				blocks = append(blocks, textBlock{Type: "text", Text: p.text})
			}
		case inputImage:
			src, ok := imageSourceFromURL(p.text)
			if !ok {
				return nil, invalid(p.param, "image_url must be an http(s) URL or a base64 data URL")
			}
			blocks = append(blocks, sourceBlock{Type: "image", Source: src})
		case inputFile:
			doc, err := documentFromFile(p.param, &chatFile{FileData: p.fileData, Filename: p.filename})
			if err != nil {
				return nil, err
			}
			blocks = append(blocks, doc)
		}
	}
	if len(blocks) == 0 {
		return "", nil
	}
	return blocks, nil
}

// anthropicToolsFromResponses writes the function tools and the choice;
// parallel_tool_calls false becomes disable_parallel_tool_use, which needs
// a tool_choice to live in.
func anthropicToolsFromResponses(tools []responsesTool, c toolChoice, parallel *bool) ([]anthropicToolOut, *anthropicToolChoice) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]anthropicToolOut, len(tools))
	for i, t := range tools {
		out[i] = anthropicToolOut{Name: t.Name, Description: t.Description, InputSchema: objectOr(t.Parameters, emptySchema)}
	}
	var tc *anthropicToolChoice
	switch c.mode {
	case "auto":
		tc = &anthropicToolChoice{Type: "auto"}
	case "none":
		return out, &anthropicToolChoice{Type: "none"}
	case "required":
		tc = &anthropicToolChoice{Type: "any"}
	case "function":
		tc = &anthropicToolChoice{Type: "tool", Name: c.name}
	}
	if parallel != nil && !*parallel {
		if tc == nil {
			tc = &anthropicToolChoice{Type: "auto"}
		}
		tc.DisableParallelToolUse = true
	}
	return out, tc
}
