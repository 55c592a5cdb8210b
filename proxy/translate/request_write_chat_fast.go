package translate

import (
	"strconv"
)

// Hand writing of an OpenAI chat request, byte for byte what marshal
// writes (HTML not escaped, fields in declaration order, omitempty as
// encoding/json has it): 3.8× faster than encoding/json on Claude Code's
// request (BenchmarkHandJSON/request_write_chat). TestChatRequestWriter and
// FuzzChatRequestWriter hold it to marshal. Each appender reports false for
// a value it was not written for (a content or tool_choice of another Go
// type, a float encoding/json refuses), and marshalChatRequest then leaves
// the whole request to marshal.

// appendChatRequest writes req: its head members, its tools, its tail.
func appendChatRequest(b []byte, req *chatRequestOut) ([]byte, bool) {
	b = append(b, `{"model":`...)
	b = appendJSONString(b, req.Model, false)
	b = append(b, `,"messages":`...)
	b, ok := appendArray(b, req.Messages, appendChatMessage)
	if !ok {
		return b, false
	}
	if req.MaxCompletionTokens != nil {
		b = append(b, `,"max_completion_tokens":`...)
		b = strconv.AppendInt(b, *req.MaxCompletionTokens, 10)
	}
	if b, ok = appendSampling(b, req.Temperature, req.TopP, `,"stop":`, req.Stop, req.Stream); !ok {
		return b, false
	}
	if req.StreamOptions != nil {
		b = append(b, `,"stream_options":{"include_usage":`...)
		b = strconv.AppendBool(b, req.StreamOptions.IncludeUsage)
		b = append(b, '}')
	}
	if len(req.Tools) > 0 {
		b = append(b, `,"tools":`...)
		b = appendChatTools(b, req.Tools)
	}
	if b, ok = appendChatRequestTail(b, &req.chatRequestTail); !ok {
		return b, false
	}
	return append(b, '}'), true
}

// appendSampling writes the members that both request writers have, in
// the order both declare them: temperature, top_p, the stop sequences under
// stopKey, and stream.
func appendSampling(b []byte, temperature, topP *float64, stopKey string, stop []string, stream bool) ([]byte, bool) {
	b, ok := appendOptFloat(b, `,"temperature":`, temperature)
	if !ok {
		return b, false
	}
	if b, ok = appendOptFloat(b, `,"top_p":`, topP); !ok {
		return b, false
	}
	if len(stop) > 0 {
		b = append(b, stopKey...)
		b = appendJSONStrings(b, stop)
	}
	if stream {
		b = append(b, `,"stream":true`...)
	}
	return b, true
}

func appendChatRequestTail(b []byte, t *chatRequestTail) ([]byte, bool) {
	switch c := t.ToolChoice.(type) {
	case nil:
	case string:
		b = append(b, `,"tool_choice":`...)
		b = appendJSONString(b, c, false)
	case chatToolChoiceFunction:
		b = append(b, `,"tool_choice":{"type":`...)
		b = appendJSONString(b, c.Type, false)
		b = append(b, `,"function":{"name":`...)
		b = appendJSONString(b, c.Function.Name, false)
		b = append(b, "}}"...)
	default:
		return b, false
	}
	if t.ParallelToolCalls != nil {
		b = append(b, `,"parallel_tool_calls":`...)
		b = strconv.AppendBool(b, *t.ParallelToolCalls)
	}
	b = appendOptMember(b, `,"reasoning_effort":`, t.ReasoningEffort)
	if t.ResponseFormat != nil {
		b = append(b, `,"response_format":`...)
		b = appendResponseFormat(b, t.ResponseFormat)
	}
	b = appendOptMember(b, `,"user":`, t.User)
	return b, true
}

func appendResponseFormat(b []byte, f *chatResponseFormat) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, f.Type, false)
	if s := f.JSONSchema; s != nil {
		b = append(b, `,"json_schema":{"name":`...)
		b = appendJSONString(b, s.Name, false)
		b = appendOptMember(b, `,"description":`, s.Description)
		if len(s.Schema) > 0 {
			b = append(b, `,"schema":`...)
			b = appendCompactValid(b, s.Schema)
		}
		if s.Strict != nil {
			b = append(b, `,"strict":`...)
			b = strconv.AppendBool(b, *s.Strict)
		}
		b = append(b, '}')
	}
	return append(b, '}')
}

func appendChatMessage(b []byte, m *chatMessageOut) ([]byte, bool) {
	b = append(b, `{"role":`...)
	b = appendJSONString(b, m.Role, false)
	b = append(b, `,"content":`...)
	switch c := m.Content.(type) {
	case nil:
		b = append(b, "null"...)
	case string:
		b = appendJSONString(b, c, false)
	case []chatPartOut:
		b = appendChatParts(b, c)
	default:
		return b, false
	}
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":`...)
		b = appendChatToolCalls(b, m.ToolCalls)
	}
	b = appendOptMember(b, `,"tool_call_id":`, m.ToolCallID)
	return append(b, '}'), true
}

// appendChatParts writes parts, nil as null.
func appendChatParts(b []byte, parts []chatPartOut) []byte {
	if parts == nil {
		return append(b, "null"...)
	}
	return appendEach(b, parts, appendChatPart)
}

func appendChatPart(b []byte, p *chatPartOut) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, p.Type, false)
	b = appendOptMember(b, `,"text":`, p.Text)
	if p.ImageURL != nil {
		b = append(b, `,"image_url":{"url":`...)
		b = appendJSONString(b, p.ImageURL.URL, false)
		b = append(b, '}')
	}
	if p.File != nil {
		b = append(b, `,"file":`...)
		b = appendChatFile(b, p.File)
	}
	return append(b, '}')
}

// appendChatFile writes a file, whose members are all omitempty.
func appendChatFile(b []byte, f *chatFile) []byte {
	open := len(b)
	b = append(b, '{')
	for _, m := range [...]struct{ key, value string }{
		{`"file_data":`, f.FileData}, {`"file_id":`, f.FileID}, {`"filename":`, f.Filename},
	} {
		if m.value != "" {
			b = appendJSONString(appendKey(b, open, m.key), m.value, false)
		}
	}
	return append(b, '}')
}

func appendChatToolCalls(b []byte, calls []chatToolCall) []byte {
	return appendEach(b, calls, appendChatToolCall)
}

func appendChatToolCall(b []byte, c *chatToolCall) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, c.ID, false)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, c.Type, false)
	b = append(b, `,"function":{"name":`...)
	b = appendJSONString(b, c.Function.Name, false)
	b = append(b, `,"arguments":`...)
	b = appendJSONString(b, c.Function.Arguments, false)
	return append(b, "}}"...)
}

// chatRequestSize estimates the length of req as JSON, so that writing it
// allocates once: its texts, and a margin for keys and escapes.
func chatRequestSize(req *chatRequestOut) int {
	n := 256 + len(req.Model) + len(req.User)
	for i := range req.Messages {
		m := &req.Messages[i]
		n += 64 + len(m.ToolCallID)
		switch c := m.Content.(type) {
		case string:
			n += len(c)
		case []chatPartOut:
			for j := range c {
				n += 48 + len(c[j].Text)
				if c[j].ImageURL != nil {
					n += len(c[j].ImageURL.URL)
				}
				if c[j].File != nil {
					n += len(c[j].File.FileData) + len(c[j].File.Filename) + len(c[j].File.FileID)
				}
			}
		}
		for j := range m.ToolCalls {
			f := &m.ToolCalls[j].Function
			n += 64 + len(m.ToolCalls[j].ID) + len(f.Name) + len(f.Arguments)
		}
	}
	for i := range req.Tools {
		f := &req.Tools[i].Function
		n += 64 + len(f.Name) + len(f.Description) + len(f.Parameters)
	}
	if req.ResponseFormat != nil && req.ResponseFormat.JSONSchema != nil {
		n += len(req.ResponseFormat.JSONSchema.Schema)
	}
	return n + n/16
}

// marshalChatRequest writes req as marshal(req) would, by hand: encoding/json's reflection costs a third of a
// translation. The tools' schemas are most of a request's bytes (Claude
// Code's two dozen tools are about 15 kB), and encoding/json would run its
// validating scanner over each one again to compact it; they were validated
// when the request was decoded, so compacting them takes one plain loop
// (appendCompactValid). TestMarshalChatRequest and FuzzMessagesToChat hold
// it to marshal.
func marshalChatRequest(req *chatRequestOut) ([]byte, error) {
	if b, ok := appendChatRequest(make([]byte, 0, chatRequestSize(req)), req); ok {
		return b, nil
	}
	return marshal(req)
}

// appendChatTools writes tools as marshal would: HTML not escaped, and the
// parameters, raw JSON from a decoded request, compacted.
func appendChatTools(b []byte, tools []chatTool) []byte {
	return appendEach(b, tools, appendChatTool)
}

func appendChatTool(b []byte, t *chatTool) []byte {
	b = append(b, `{"type":`...)
	b = appendJSONString(b, t.Type, false)
	b = append(b, `,"function":{"name":`...)
	b = appendJSONString(b, t.Function.Name, false)
	b = appendOptMember(b, `,"description":`, t.Function.Description)
	if len(t.Function.Parameters) > 0 {
		b = append(b, `,"parameters":`...)
		b = appendCompactValid(b, t.Function.Parameters)
	}
	if t.Function.Strict != nil {
		b = append(b, `,"strict":`...)
		b = strconv.AppendBool(b, *t.Function.Strict)
	}
	return append(b, "}}"...)
}
