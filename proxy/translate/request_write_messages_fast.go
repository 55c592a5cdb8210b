package translate

import (
	"encoding/json"
	"strconv"
)

// Hand writing of an Anthropic request, byte for byte what marshal writes
// (HTML not escaped, fields in declaration order, omitempty as
// encoding/json has it): 2.9× faster than encoding/json on a tool round
// trip (BenchmarkHandJSON/request_write_messages). Each appender reports
// false for a value it was not written for (a system, content or block of
// another Go type, an empty raw value, a float encoding/json refuses), and
// marshalMessagesRequest then leaves the whole request to marshal.
// TestMessagesRequestWriter and FuzzMessagesRequestWriter hold it to
// marshal.

// marshalMessagesRequest writes out as marshal(out) would.
func marshalMessagesRequest(out *messagesRequestOut) ([]byte, error) {
	if b, ok := appendMessagesRequest(make([]byte, 0, messagesRequestSize(out)), out); ok {
		return b, nil
	}
	return marshal(out)
}

func appendMessagesRequest(b []byte, req *messagesRequestOut) ([]byte, bool) {
	b = append(b, `{"model":`...)
	b = appendJSONString(b, req.Model, false)
	b, ok := appendSystem(b, req.System)
	if !ok {
		return b, false
	}
	b = append(b, `,"messages":`...)
	if b, ok = appendArray(b, req.Messages, appendAnthropicMessage); !ok {
		return b, false
	}
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, req.MaxTokens, 10)
	if b, ok = appendSampling(b, req.Temperature, req.TopP, `,"stop_sequences":`, req.StopSequences, req.Stream); !ok {
		return b, false
	}
	if len(req.Tools) > 0 {
		b = append(b, `,"tools":`...)
		if b, ok = appendArray(b, req.Tools, appendAnthropicTool); !ok {
			return b, false
		}
	}
	if b, ok = appendMessagesRequestTail(b, req); !ok {
		return b, false
	}
	return append(b, '}'), true
}

// appendSystem writes system unless it is nil (omitempty on an interface):
// a string, or text blocks.
func appendSystem(b []byte, system any) ([]byte, bool) {
	switch s := system.(type) {
	case nil:
		return b, true
	case string:
		b = append(b, `,"system":`...)
		return appendJSONString(b, s, false), true
	case []textBlock:
		b = append(b, `,"system":`...)
		if s == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i := range s {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTextBlock(b, s[i])
		}
		return append(b, ']'), true
	}
	return b, false
}

func appendMessagesRequestTail(b []byte, req *messagesRequestOut) ([]byte, bool) {
	if c := req.ToolChoice; c != nil {
		b = append(b, `,"tool_choice":{"type":`...)
		b = appendJSONString(b, c.Type, false)
		b = appendOptMember(b, `,"name":`, c.Name)
		if c.DisableParallelToolUse {
			b = append(b, `,"disable_parallel_tool_use":true`...)
		}
		b = append(b, '}')
	}
	if m := req.Metadata; m != nil {
		b = append(b, `,"metadata":{`...)
		b = appendOptMember(b, `"user_id":`, m.UserID)
		b = append(b, '}')
	}
	if oc := req.OutputConfig; oc != nil {
		b = append(b, `,"output_config":{`...)
		if f := oc.Format; f != nil {
			b = append(b, `"format":{"type":`...)
			b = appendJSONString(b, f.Type, false)
			if len(f.Schema) > 0 {
				b = append(b, `,"schema":`...)
				b = appendCompactValid(b, f.Schema)
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if t := req.Thinking; t != nil {
		b = append(b, `,"thinking":{"type":`...)
		b = appendJSONString(b, t.Type, false)
		b = append(b, `,"budget_tokens":`...)
		b = strconv.AppendInt(b, t.BudgetTokens, 10)
		b = append(b, '}')
	}
	return b, true
}

func appendAnthropicMessage(b []byte, m *anthropicMessageOut) ([]byte, bool) {
	b = append(b, `{"role":`...)
	b = appendJSONString(b, m.Role, false)
	b = append(b, `,"content":`...)
	b, ok := appendRequestContent(b, m.Content)
	return append(b, '}'), ok
}

// appendRequestContent writes a content: a string, or blocks (nil and
// nil blocks as null).
func appendRequestContent(b []byte, content any) ([]byte, bool) {
	switch c := content.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, c, false), true
	case []any:
		if c == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, block := range c {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendRequestBlock(b, block); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return b, false
}

// appendRequestBlock writes one of the blocks Request(Chat, Messages) makes.
func appendRequestBlock(b []byte, block any) ([]byte, bool) {
	switch v := block.(type) {
	case textBlock:
		return appendTextBlock(b, v), true
	case sourceBlock:
		return appendSourceBlock(b, &v), true
	case toolUseBlock:
		return appendToolUseBlock(b, &v)
	case json.RawMessage:
		return appendRawValue(b, v)
	case toolResultBlock:
		b = append(b, `{"type":`...)
		b = appendJSONString(b, v.Type, false)
		b = append(b, `,"tool_use_id":`...)
		b = appendJSONString(b, v.ToolUseID, false)
		b = append(b, `,"content":`...)
		b, ok := appendRequestContent(b, v.Content)
		return append(b, '}'), ok
	}
	return b, false
}

func appendTextBlock(b []byte, t textBlock) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, t.Type, false)
	b = append(b, `,"text":`...)
	b = appendJSONString(b, t.Text, false)
	return append(b, '}')
}

func appendSourceBlock(b []byte, v *sourceBlock) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, v.Type, false)
	b = append(b, `,"source":{"type":`...)
	b = appendJSONString(b, v.Source.Type, false)
	for _, m := range [...]struct{ key, value string }{
		{`,"media_type":`, v.Source.MediaType}, {`,"data":`, v.Source.Data}, {`,"url":`, v.Source.URL},
	} {
		if m.value != "" {
			b = append(b, m.key...)
			b = appendJSONString(b, m.value, false)
		}
	}
	b = append(b, '}')
	b = appendOptMember(b, `,"title":`, v.Title)
	return append(b, '}')
}

func appendAnthropicTool(b []byte, t *anthropicToolOut) ([]byte, bool) {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, t.Name, false)
	b = appendOptMember(b, `,"description":`, t.Description)
	b = append(b, `,"input_schema":`...)
	b, ok := appendRawValue(b, t.InputSchema)
	return append(b, '}'), ok
}

// appendToolUseBlock writes a tool_use block, in a request or an answer.
func appendToolUseBlock(b []byte, v *toolUseBlock) ([]byte, bool) {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, v.Type, false)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, v.ID, false)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, v.Name, false)
	b = append(b, `,"input":`...)
	b, ok := appendRawValue(b, v.Input)
	return append(b, '}'), ok
}

// messagesRequestSize estimates the length of req as JSON, so that writing
// it allocates once: its texts, and a margin for keys and escapes.
func messagesRequestSize(req *messagesRequestOut) int {
	n := 256 + len(req.Model)
	if s, ok := req.System.(string); ok {
		n += len(s)
	} else if s, ok := req.System.([]textBlock); ok {
		for i := range s {
			n += 32 + len(s[i].Text)
		}
	}
	for i := range req.Messages {
		n += 32 + contentSize(req.Messages[i].Content)
	}
	for i := range req.Tools {
		n += 48 + len(req.Tools[i].Name) + len(req.Tools[i].Description) + len(req.Tools[i].InputSchema)
	}
	if oc := req.OutputConfig; oc != nil && oc.Format != nil {
		n += len(oc.Format.Schema)
	}
	return n + n/16
}

func contentSize(content any) int {
	switch c := content.(type) {
	case string:
		return len(c)
	case []any:
		n := 0
		for _, block := range c {
			switch v := block.(type) {
			case textBlock:
				n += 32 + len(v.Text)
			case sourceBlock:
				n += 80 + len(v.Source.Data) + len(v.Source.URL) + len(v.Title)
			case toolUseBlock:
				n += 48 + len(v.ID) + len(v.Name) + len(v.Input)
			case toolResultBlock:
				n += 48 + len(v.ToolUseID) + contentSize(v.Content)
			}
		}
		return n
	}
	return 0
}
