package proxy

import (
	"encoding/json"
	"testing"
)

// FuzzParseChatRequest feeds arbitrary bodies to the hand-written scanner:
// it must never panic, and whatever it accepts must come out of rewrite as
// valid JSON whose model is the upstream model and whose stream flag and
// message count are the ones encoding/json reads.
func FuzzParseChatRequest(f *testing.F) {
	for _, seed := range []string{
		`{"model":"m","messages":[]}`,
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`,
		`{"stream_options":{"include_usage":false},"model":"m","messages":[],"stream":true}`,
		`{"stream_options":null,"model":"m","messages":[],"stream":true}`,
		`{"stream_options":{ },"model":"m","messages":[],"stream":true}`,
		` { "mod\u0065l" : "m" , "messages" : [ 1 , [2] , {"a":"]"} ] } `,
		`{"model":"m","model":"n","messages":[]}`,
		`["model"]`, `{}`, `{"model":1}`, `{"model":"m","messages":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parseChatRequest(body)
		if err != nil {
			return
		}
		out := req.rewrite("upstream/model", req.stream)
		// A map, not a struct: encoding/json matches struct fields without
		// regard to case, and upstreams do not.
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("rewrite of %q is not valid JSON: %v\n%s", body, err, out)
		}
		if string(got["model"]) != `"upstream/model"` {
			t.Fatalf("rewrite of %q has model %s", body, got["model"])
		}
		if (string(got["stream"]) == "true") != req.stream {
			t.Fatalf("%q: stream %s, parsed %v", body, got["stream"], req.stream)
		}
		var opts struct {
			IncludeUsage bool `json:"include_usage"`
		}
		if req.stream && (json.Unmarshal(got["stream_options"], &opts) != nil || !opts.IncludeUsage) {
			t.Fatalf("stream rewrite of %q does not ask for usage: %s", body, out)
		}
	})
}
