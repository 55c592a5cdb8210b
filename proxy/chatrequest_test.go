package proxy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRewrite(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
		wantsUsage       bool
	}{
		{
			name: "model replaced, the rest byte for byte",
			body: `{ "messages": [{"role":"user","content":"<b>&amp;</b> é \u00e9"}], "model" : "public/x", "temperature": 0.70 }`,
			want: `{ "messages": [{"role":"user","content":"<b>&amp;</b> é \u00e9"}], "model" : "up-x", "temperature": 0.70 }`,
		},
		{
			name: "stream without stream_options",
			body: `{"model":"m","stream":true,"messages":[]}`,
			want: `{"stream_options":{"include_usage":true},"model":"up-x","stream":true,"messages":[]}`,
		},
		{
			name: "stream with empty stream_options",
			body: `{"model":"m","stream":true,"stream_options":{ },"messages":[]}`,
			want: `{"model":"up-x","stream":true,"stream_options":{"include_usage":true },"messages":[]}`,
		},
		{
			name: "other stream_options kept",
			body: `{"stream_options":{"include_obfuscation":false},"model":"m","stream":true,"messages":[]}`,
			want: `{"stream_options":{"include_usage":true,"include_obfuscation":false},"model":"up-x","stream":true,"messages":[]}`,
		},
		{
			name: "include_usage false switched on",
			body: `{"model":"m","stream":true,"stream_options":{"include_usage":false},"messages":[]}`,
			want: `{"model":"up-x","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
		},
		{
			name: "stream_options null",
			body: `{"model":"m","stream":true,"stream_options":null,"messages":[]}`,
			want: `{"model":"up-x","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
		},
		{
			name:       "caller asked for usage itself",
			body:       `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
			want:       `{"model":"up-x","stream":true,"stream_options":{"include_usage":true},"messages":[]}`,
			wantsUsage: true,
		},
		{
			name: "not a stream: stream_options untouched",
			body: `{"model":"m","stream":false,"stream_options":{"include_usage":false},"messages":[]}`,
			want: `{"model":"up-x","stream":false,"stream_options":{"include_usage":false},"messages":[]}`,
		},
		{
			name: "escaped key is still the model",
			body: `{"mod\u0065l":"m","messages":[]}`,
			want: `{"mod\u0065l":"up-x","messages":[]}`,
		},
		{
			name: "model inside a message is not the model",
			body: `{"messages":[{"model":"inner"}],"model":"m"}`,
			want: `{"messages":[{"model":"inner"}],"model":"up-x"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := parseChatRequest([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got := string(req.rewrite("up-x", req.stream))
			if got != tc.want {
				t.Errorf("rewrite:\n got %s\nwant %s", got, tc.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("rewrite is not JSON: %s", got)
			}
			if req.wantsUsage != tc.wantsUsage {
				t.Errorf("wantsUsage: got %v, want %v", req.wantsUsage, tc.wantsUsage)
			}
		})
	}
}

func TestParseChatRequestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body, wantCode string
	}{
		{"invalid UTF-8", "{\"model\":\"\xc3\x28\",\"messages\":[]}", "invalid_encoding"},
		{"not JSON", `{"model":`, "invalid_json"},
		{"trailing garbage", `{"model":"m","messages":[]} x`, "invalid_json"},
		{"array", `[]`, "invalid_body"},
		{"string", `"model"`, "invalid_body"},
		{"model null", `{"model":null,"messages":[]}`, "missing_model"},
		{"model object", `{"model":{"name":"m"},"messages":[]}`, "invalid_type"},
		{"stream number", `{"model":"m","stream":1,"messages":[]}`, "invalid_type"},
		{"messages object", `{"model":"m","messages":{}}`, "invalid_type"},
		{"stream_options string", `{"model":"m","stream":true,"stream_options":"x","messages":[]}`, "invalid_type"},
		{"duplicate stream", `{"model":"m","stream":false,"stream":true,"messages":[]}`, "duplicate_field"},
		{"escaped duplicate model", `{"model":"a","mod\u0065l":"b","messages":[]}`, "duplicate_field"},
		{"model in another case", `{"model":"allowed","MODEL":"other","messages":[]}`, "duplicate_field"},
		{"NUL in model", `{"model":"a\u0000","messages":[]}`, "invalid_model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseChatRequest([]byte(tc.body))
			var ae *apiError
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want an *apiError", err)
			}
			if ae.Status != 400 || ae.Code != tc.wantCode {
				t.Errorf("got %d %s, want 400 %s", ae.Status, ae.Code, tc.wantCode)
			}
		})
	}
}

func TestStreamInspect(t *testing.T) {
	usageOnly := []byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"prompt_tokens_details\":{\"cached_tokens\":1}}}\n\n")
	content := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"the \\\"usage\\\": {} is text\"},\"finish_reason\":null}],\"usage\":null}\n\n")
	finish := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
	for _, tc := range []struct {
		name        string
		ev          []byte
		wantsUsage  bool
		wantForward bool
		wantUsage   bool
		wantFinish  bool
	}{
		{"usage-only chunk, not asked for", usageOnly, false, false, true, false},
		{"usage-only chunk, asked for", usageOnly, true, true, true, false},
		{"content that mentions usage", content, false, true, false, false},
		{"finish chunk", finish, false, true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &openAIPassthrough{wantsUsage: tc.wantsUsage}
			out, err := a.event(tc.ev)
			if got := out != nil; got != tc.wantForward || err != nil {
				t.Errorf("forward: got %v (%v), want %v", got, err, tc.wantForward)
			}
			u, ok := a.usage()
			if ok != tc.wantUsage || a.sawFinish != tc.wantFinish {
				t.Errorf("usage %+v %v, finish %v", u, ok, a.sawFinish)
			}
			if tc.wantUsage && (u.InputTokens != 3 || u.CacheReadTokens != 1) {
				t.Errorf("usage: got %+v", u)
			}
		})
	}
}

func TestEventReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the reader's buffer
	in := ": ping\n\n\n" + "data: {\"a\":\"" + long + "\"}\r\n\r\n" + "event: x\ndata: 1\n\n" + "data: [DONE]"
	er := newEventReader(strings.NewReader(in))
	var got []string
	for {
		ev, err := er.next()
		if err != nil {
			break
		}
		got = append(got, string(ev))
	}
	want := []string{": ping\n\n", "data: {\"a\":\"" + long + "\"}\r\n\r\n", "event: x\ndata: 1\n\n", "data: [DONE]\n\n"}
	if len(got) != len(want) {
		t.Fatalf("events: got %d, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: got %.60q, want %.60q", i, got[i], want[i])
		}
	}
}
