package translate

// DefaultMaxTokens is the max_tokens sent to Anthropic, which requires one,
// when the caller gave none. 4096 is the largest value every Claude model
// accepts (it is Claude 3 Haiku's output limit); a longer answer ends with
// finish_reason "length".
const DefaultMaxTokens = 4096

// writeMessagesBody writes req as an Anthropic request body for
// upstreamModel (see writeMessagesRequest and marshalMessagesRequest),
// without the reasoning effort of a caller that cannot send thinking back
// (see request.thinkingOneWay).
func writeMessagesBody(req request, upstreamModel string, _ Options) ([]byte, error) {
	if req.thinkingOneWay {
		req.effort = ""
	}
	out, err := writeMessagesRequest(&req, upstreamModel)
	if err != nil {
		return nil, err
	}
	return marshalMessagesRequest(&out)
}

// writeMessagesRequest writes req as an Anthropic messages request for
// upstreamModel.
//
// System prompts, wherever they stand, are gathered in order into
// Anthropic's top-level system (a string for one, text blocks for several):
// Anthropic accepts system text inside messages only under a beta. Tool
// results go as tool_result blocks into the user turn that follows, first,
// as Anthropic requires; consecutive turns of one role merge. Tool call ids
// are kept exactly. temperature is clamped to Anthropic's 0..1; a top_p of 1
// or more (no truncation) is left out, because newer Claude models refuse
// temperature and top_p together. The end user becomes metadata.user_id and
// a json_schema response format output_config.format. tool_choice auto,
// none, required and a named function become auto, none, any and tool;
// parallel_tool_calls false becomes disable_parallel_tool_use, which needs a
// tool_choice to live in.
//
// A reasoning effort turns on thinking with a budget (see thinkingBudget),
// and thinking blocks go back as they came; without thinking they are
// dropped. Images must be http(s) or base64 data URLs and files inline PDFs.
func writeMessagesRequest(req *request, upstreamModel string) (messagesRequestOut, error) {
	budget, err := thinkingBudget(req)
	if err != nil {
		return messagesRequestOut{}, err
	}
	out := messagesRequestOut{
		Model:         upstreamModel,
		MaxTokens:     DefaultMaxTokens + budget,
		Temperature:   clampTemperature(req.temperature),
		TopP:          usefulTopP(req.topP),
		StopSequences: req.stop,
		Stream:        req.stream,
		Metadata:      userMetadata(req.user),
		OutputConfig:  outputConfig(req.format),
	}
	if v := req.maxTokens; v != nil && *v > 0 {
		out.MaxTokens = *v
	}
	if budget > 0 {
		// Anthropic refuses temperature and top_p other than the defaults with thinking.
		out.Thinking = &anthropicThinking{Type: "enabled", BudgetTokens: budget}
		out.Temperature, out.TopP = nil, nil
	}
	if out.System, out.Messages, err = messagesFromRequest(req, budget > 0); err != nil {
		return messagesRequestOut{}, err
	}
	out.Tools, out.ToolChoice = anthropicTools(req)
	return out, nil
}

// clampTemperature maps OpenAI's 0..2 onto Anthropic's 0..1 by clamping:
// values up to 1 mean the same on both sides, and above 1 Anthropic has no
// hotter setting to offer.
func clampTemperature(t *float64) *float64 {
	if t == nil {
		return nil
	}
	v := min(max(*t, 0), 1)
	return &v
}

func usefulTopP(p *float64) *float64 {
	if p == nil || *p >= 1 {
		return nil
	}
	return p
}

func userMetadata(user string) *anthropicMetadata {
	if user == "" {
		return nil
	}
	return &anthropicMetadata{UserID: user}
}

func outputConfig(rf *chatResponseFormat) *anthropicOutputConfig {
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || isNull(rf.JSONSchema.Schema) {
		return nil
	}
	return &anthropicOutputConfig{Format: &anthropicOutputFormat{
		Type: "json_schema", Schema: objectOr(rf.JSONSchema.Schema, "{}")}}
}

// Thinking budgets by reasoning effort. The boundaries of reasoningEffort
// (the reverse mapping) put each back at its effort, and with the answer's
// DefaultMaxTokens on top, max_tokens stays within every thinking Claude
// model's output limit (Claude Opus 4's 32000 is the lowest).
const (
	minThinkingBudget    = 1024 // Anthropic's minimum
	lowThinkingBudget    = 4096
	mediumThinkingBudget = 16384
	highThinkingBudget   = 24576
)

// thinkingBudget gives the thinking budget for the reasoning effort: none
// (and no effort) 0, minimal 1024, low 4096, medium 16384, high and xhigh
// 24576. Thinking stays off where Anthropic would refuse it: with a
// tool_choice that forces a tool, with a max tokens that leaves less than
// the minimum budget beside 1024 tokens of answer (else the budget is cut to
// fit), and when the conversation's last assistant turn calls tools without
// starting with a thinking block (Anthropic wants the thinking of a tool-use
// turn back; the caller could not send it if the turn came from another
// model).
func thinkingBudget(req *request) (int64, error) {
	budget, err := effortBudget(req.effort)
	if budget == 0 || err != nil {
		return 0, err
	}
	if m := req.toolChoice.mode; m == "required" || m == "function" || !req.lastToolTurnThinks() {
		return 0, nil
	}
	if v := req.maxTokens; v != nil && *v > 0 {
		budget = min(budget, *v-1024)
	}
	if budget < minThinkingBudget {
		return 0, nil
	}
	return budget, nil
}

// effortBudget is the thinking budget a reasoning effort asks for: none
// (and no effort) 0, minimal 1024, low 4096, medium 16384, high and xhigh
// 24576; an effort no protocol has is refused.
func effortBudget(effort string) (int64, error) {
	switch effort {
	case "", "none":
		return 0, nil
	case "minimal":
		return minThinkingBudget, nil
	case "low":
		return lowThinkingBudget, nil
	case "medium":
		return mediumThinkingBudget, nil
	case "high", "xhigh":
		return highThinkingBudget, nil
	}
	return 0, invalid("reasoning.effort", "unknown reasoning effort %q", effort)
}

// lastToolTurnThinks reports whether the last assistant turn (a run of
// assistant messages; system prompts stand in no turn) either calls no tool
// or starts with a thinking block.
func (r *request) lastToolTurnThinks() bool {
	seen, calls, first := false, false, partText
	for i := len(r.messages) - 1; i >= 0; i-- {
		m := &r.messages[i]
		switch m.role {
		case roleAssistant:
			parts := r.partsOf(m)
			for j := range parts {
				calls = calls || parts[j].kind == partCall
			}
			if len(parts) > 0 {
				first = parts[0].kind
			}
			seen = true
		case roleSystem:
		default:
			if seen {
				return !calls || first == partThinking
			}
		}
	}
	return !seen || !calls || first == partThinking
}

// messagesBuilder gathers Anthropic's system blocks and turns.
type messagesBuilder struct {
	system   []textBlock
	msgs     []anthropicMessageOut
	thinking bool // send thinking blocks back
}

func messagesFromRequest(req *request, thinking bool) (system any, msgs []anthropicMessageOut, err error) {
	b := messagesBuilder{msgs: make([]anthropicMessageOut, 0, len(req.messages)), thinking: thinking}
	for i := range req.messages {
		if err := b.add(&req.messages[i], req.partsOf(&req.messages[i])); err != nil {
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

func (b *messagesBuilder) add(m *message, parts []part) error {
	switch m.role {
	case roleSystem:
		for _, t := range texts(parts) {
			b.system = append(b.system, textBlock{Type: "text", Text: t})
		}
	case roleUser, roleAssistant:
		content, err := b.content(m.asString, parts)
		if err == nil && !isEmpty(content) { // Anthropic refuses empty turns
			b.append(anthropicRole(m.role), content)
		}
		return err
	case roleTool:
		content, err := toolResultContent(m.asString, parts)
		if err == nil {
			b.append("user", []any{toolResultBlock{Type: "tool_result", ToolUseID: m.callID, Content: content}})
		}
		return err
	}
	return nil
}

func anthropicRole(r role) string {
	if r == roleAssistant {
		return "assistant"
	}
	return "user"
}

// content keeps a string a string and turns parts into blocks.
func (b *messagesBuilder) content(asString bool, parts []part) (any, error) {
	if asString {
		return parts[0].text, nil
	}
	blocks := make([]any, 0, len(parts))
	for i := 0; i < len(parts); {
		p, content, after := next(parts, i)
		i = after
		if p.kind == partThinking && !b.thinking {
			continue
		}
		block, err := requestBlock(p, content)
		if err != nil {
			return nil, err
		}
		if block != nil {
			blocks = append(blocks, block)
		}
	}
	return blocks, nil
}

// requestBlock gives a part as an Anthropic block, nil for an empty text
// (Anthropic refuses empty text blocks).
func requestBlock(p *part, content []part) (any, error) {
	switch p.kind {
	case partText:
		if p.text == "" {
			return nil, nil
		}
		return textBlock{Type: "text", Text: p.text}, nil
	case partImage:
		src, ok := imageSourceFromURL(p.text)
		if !ok {
			return nil, invalid(p.param, "image_url must be an http(s) URL or a base64 data URL")
		}
		return sourceBlock{Type: "image", Source: src}, nil
	case partFile:
		mediaType, data, err := pdfData(p.param, p.text)
		if err != nil {
			return nil, err
		}
		return sourceBlock{Type: "document", Title: p.name,
			Source: anthropicSource{Type: "base64", MediaType: mediaType, Data: data}}, nil
	case partDocumentText:
		return sourceBlock{Type: "document", Source: anthropicSource{Type: "text", MediaType: "text/plain", Data: p.text}}, nil
	case partThinking:
		return p.block, nil
	case partCall:
		return toolUseBlock{Type: "tool_use", ID: p.id, Name: p.name, Input: toolInput(p.text)}, nil
	case partToolResult:
		c, err := toolResultContent(p.asString, content)
		return toolResultBlock{Type: "tool_result", ToolUseID: p.id, Content: c}, err
	}
	return nil, nil
}

// toolResultContent keeps a string a string and gives parts as blocks.
func toolResultContent(asString bool, parts []part) (any, error) {
	if asString {
		return parts[0].text, nil
	}
	blocks := make([]any, 0, len(parts))
	for i := range parts {
		block, err := requestBlock(&parts[i], nil)
		if err != nil {
			return nil, err
		}
		if block != nil {
			blocks = append(blocks, block)
		}
	}
	return blocks, nil
}

// append adds a turn, merging it into the previous one of the same role:
// Anthropic wants tool results together and first in the next user turn.
func (b *messagesBuilder) append(role string, content any) {
	n := len(b.msgs)
	if n == 0 || b.msgs[n-1].Role != role {
		b.msgs = append(b.msgs, anthropicMessageOut{Role: role, Content: content})
		return
	}
	b.msgs[n-1].Content = append(asBlocks(b.msgs[n-1].Content), asBlocks(content)...)
}

func isEmpty(content any) bool {
	switch c := content.(type) {
	case string:
		return c == ""
	case []any:
		return len(c) == 0
	}
	return true
}

func asBlocks(content any) []any {
	switch c := content.(type) {
	case string:
		if c == "" {
			return nil
		}
		return []any{textBlock{Type: "text", Text: c}}
	case []any:
		return c
	}
	return nil
}

// anthropicTools writes the tools and the choice. Without tools a
// tool_choice means nothing, and Anthropic refuses one, so it is left out.
func anthropicTools(req *request) ([]anthropicToolOut, *anthropicToolChoice) {
	if len(req.tools) == 0 {
		return nil, nil
	}
	out := make([]anthropicToolOut, len(req.tools))
	for i, t := range req.tools {
		out[i] = anthropicToolOut{Name: t.name, Description: t.description, InputSchema: objectOr(t.parameters, emptySchema)}
	}
	var tc *anthropicToolChoice
	switch req.toolChoice.mode {
	case "auto":
		tc = &anthropicToolChoice{Type: "auto"}
	case "none":
		return out, &anthropicToolChoice{Type: "none"}
	case "required":
		tc = &anthropicToolChoice{Type: "any"}
	case "function":
		tc = &anthropicToolChoice{Type: "tool", Name: req.toolChoice.name}
	}
	if p := req.parallel; p != nil && !*p {
		if tc == nil {
			tc = &anthropicToolChoice{Type: "auto"}
		}
		tc.DisableParallelToolUse = true
	}
	return out, tc
}
