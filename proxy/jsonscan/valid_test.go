package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

var validSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`, `.5`, `+1`, `1.5e3x`,
	`true`, `tru`, `truex`, `null`, `nul`, `false`, ` {"a" : [1, 2.5, "x", null, true, {"b": {}}]} `,
	`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `[1 2]`, `{"a":1}}`, `[[]`,
	`"\u00e9\n\t\"\\\/\b\f\r"`, `"\u12"`, `"\u12G4"`, `"\x"`, "\"a\x01b\"", "\"\xff\xfe\"", `"unterminated`,
	`"\`, `"\u`, `{"a":"b"} x`, "\n[\r1\t]\n", `[1e999]`, `-01`, `00`, `0.0e-0`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range validSeeds {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range validSeeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Add(benchBody)
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		if !Valid(benchBody) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkEncodingJSONValid(b *testing.B) {
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		if !json.Valid(benchBody) {
			b.Fatal("invalid")
		}
	}
}

// benchBody is a typical agent request: a system prompt, a few turns, tools.
var benchBody = []byte(`{"model":"openai/gpt-4o","stream":true,"temperature":0.2,"messages":[` +
	`{"role":"system","content":"You are a coding agent. Follow the repository's conventions and explain briefly."},` +
	`{"role":"user","content":"Please refactor the function below so that it is shorter and says why in comments.\n\nfunc f() {}"},` +
	`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}]},` +
	`{"role":"tool","tool_call_id":"call_1","content":"package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"},` +
	`{"role":"user","content":"Now also add a test."}],` +
	`"tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]}`)
