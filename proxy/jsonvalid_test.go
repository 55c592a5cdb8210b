package proxy

import (
	"encoding/json"
	"strings"
	"testing"
)

var validJSONSeeds = []string{
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

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range validJSONSeeds {
		if got, want := validJSON([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("validJSON(%.60q) = %v, json.Valid says %v", s, got, want)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range validJSONSeeds {
		if len(s) < 1000 {
			f.Add([]byte(s))
		}
	}
	f.Add(benchBody)
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

func BenchmarkValidJSON(b *testing.B) {
	b.SetBytes(int64(len(benchBody)))
	for b.Loop() {
		if !validJSON(benchBody) {
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
