package translate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// decodeAgrees checks that decode gives what encoding/json gives: the same
// value, and an error exactly when encoding/json has one.
func decodeAgrees[T any](t *testing.T, data []byte) {
	t.Helper()
	var got, want T
	gotErr, wantErr := decode(data, &got), json.Unmarshal(data, &want)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%T from %q: decode error %v, encoding/json error %v", got, data, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%T from %q:\ndecode        %+v\nencoding/json %+v", got, data, got, want)
	}
}

// decodeAgreesAll decodes data as every type the translators decode a
// whole body or a content into.
func decodeAgreesAll(t *testing.T, data []byte) {
	decodeAgrees[messagesRequest](t, data)
	decodeAgrees[chatRequest](t, data)
	decodeAgrees[responsesRequest](t, data)
	decodeAgrees[chatResponse](t, data)
	decodeAgrees[messagesResponse](t, data)
	decodeAgrees[[]anthropicBlock](t, data)
	decodeAgrees[[]chatPart](t, data)
	decodeAgrees[string](t, data)
}

// TestDecodeAgreesOnGoldens runs every golden input through both decoders.
func TestDecodeAgreesOnGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/*/*.in.json")
	if err != nil || len(files) < 50 {
		t.Fatalf("%d golden inputs (%v)", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		decodeAgreesAll(t, data)
	}
}

func FuzzDecodeAgrees(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.in.json")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && len(data) < 4096 {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`{"model":"a","MODEL":"b","Model":"c"}`, `{"model":"a","model":"b"}`, "{\"model\":\"\xff\xfe\"}",
		`{"max_tokens":1.0}`, `{"max_tokens":1e3}`, `{"max_tokens":-0}`, `{"max_tokens":null}`, `{"stream":"true"}`,
		`{"messages":[{"role":"user","content":"\ud800"}]}`, `{"mod\u0065l":"x"}`, `{"temperature":1e400}`,
		`{"messages":null}`, `{"messages":{}}`, `[]`, `null`, `{"metadata":{"user_id":1}}`, `{"tools":[{"input_schema":{"a":1,}}]}`,
		`{"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]}`, ` {"model" : "m" } `, `{"model":"m"} {}`,
		`[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}]`,
		`[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"r"}],"is_error":true}]`,
		`[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA==","detail":"low"}}]`,
		`"a\u00e9\u2028"`, `"\ud83d\ude00"`, "\"\xed\xa0\x80\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeAgreesAll(t, data)
	})
}

func BenchmarkDecodeClaudeCode(b *testing.B) {
	body := readTestdata(b, "testdata/messages_to_chat/claude_code.in.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var req messagesRequest
		if err := decode(body, &req); err != nil {
			b.Fatal(err)
		}
	}
}
