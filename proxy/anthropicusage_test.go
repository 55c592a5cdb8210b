package proxy

import (
	"testing"
)

const (
	messageStartData = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
		`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":412,"cache_creation_input_tokens":0,` +
		`"cache_read_input_tokens":2048,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},` +
		`"output_tokens":1,"service_tier":"standard"}}}`
	// Claude Code's turn: 2,000 tokens written to the 1-hour cache.
	messageStart1hData = `{"type":"message_start","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
		`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"cache_creation_input_tokens":2000,` +
		`"cache_read_input_tokens":40000,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":2000},` +
		`"output_tokens":1,"service_tier":"standard"}}}`
	messageDeltaData = `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":38}}`
)

// TestEventCountsFastPath: the events upstreams send are read by hand,
// without an allocation, to the counts encoding/json reads.
func TestEventCountsFastPath(t *testing.T) {
	for _, tc := range []struct {
		data      string
		inMessage bool
		want      anthropicCounts
	}{
		{messageStartData, true, anthropicCounts{n: [numCounts]int64{412, 2048, 0, 1, 0}, set: [numCounts]bool{true, true, true, true, true}}},
		{messageStart1hData, true, anthropicCounts{n: [numCounts]int64{3, 40000, 2000, 1, 2000}, set: [numCounts]bool{true, true, true, true, true}}},
		{messageDeltaData, false, anthropicCounts{n: [numCounts]int64{countOutput: 38}, set: [numCounts]bool{countOutput: true}}},
		{`{"type":"message_delta","usage":{"input_tokens":null,"output_tokens":7}}`, false,
			anthropicCounts{n: [numCounts]int64{countOutput: 7}, set: [numCounts]bool{countOutput: true}}},
		{`{"usage":{"output_tokens":7,"cache_creation":null}}`, false,
			anthropicCounts{n: [numCounts]int64{countOutput: 7}, set: [numCounts]bool{countOutput: true}}},
		{`{"type":"message_start","message":null}`, true, anthropicCounts{}},
	} {
		c, ok, decided := fastEventCounts([]byte(tc.data), tc.inMessage)
		if !decided || !ok || c != tc.want {
			t.Errorf("%s: %+v ok %v decided %v; want %+v by hand", tc.data, c, ok, decided, tc.want)
		}
		if j, jok := jsonEventCounts([]byte(tc.data), tc.inMessage); !jok || j != tc.want {
			t.Errorf("%s: encoding/json reads %+v (ok %v)", tc.data, j, jok)
		}
	}
	data := []byte(messageStartData)
	if n := testing.AllocsPerRun(100, func() { eventCounts(data, true) }); n != 0 {
		t.Errorf("message_start's counts allocate %.0f times", n)
	}
}

// FuzzEventCounts holds eventCounts to encoding/json's reading of the same
// event data, in both places the usage is found.
func FuzzEventCounts(f *testing.F) {
	for _, seed := range []string{
		messageStartData, messageDeltaData, messageStart1hData,
		`{"usage":{"cache_creation":{"ephemeral_1h_input_tokens":5}}}`, `{"usage":{"cache_creation":[]}}`,
		`{"usage":{"cache_creation":"x"}}`, `{"usage":{"cache_creation":{"ephemeral_1h_input_tokens":1,"ephemeral_1h_input_tokens":2}}}`,
		`{"usage":{"cache_creation":{"Ephemeral_1h_input_tokens":5}}}`, `{"usage":{"cache_creation":{}},"usage":{"cache_creation":{}}}`,
		`{"usage":{"cache_creation":{"ephemeral_1h_input_tokens":null}}}`, `{"usage":{"cache_creation":{},"cache_creation":null}}`,
		`{"usage":{"output_tokens":1}}`, `{"usage":null}`, `{"usage":{}}`, `{}`, `[]`, `null`, `1`,
		`{"message":{"usage":{"input_tokens":1}},"usage":{"output_tokens":2}}`,
		`{"Usage":{"output_tokens":1}}`, `{"usage":{"OUTPUT_TOKENS":1}}`, `{"us\u0061ge":{"output_tokens":1}}`,
		`{"usage":{"output_tokens":1,"output_tokens":2}}`, `{"usage":{"output_tokens":1},"usage":{"input_tokens":2}}`,
		`{"usage":{"output_tokens":1.5}}`, `{"usage":{"output_tokens":1e2}}`, `{"usage":{"output_tokens":"3"}}`,
		`{"usage":{"output_tokens":-4}}`, `{"usage":{"output_tokens":99999999999999999999}}`, `{"usage":[1]}`,
		`{"message":"x"}`, `{"message":{"usage":"x"}}`, `{"usage":{"output_tokens":1}} x`, `{"usage":{"output_tokens":01}}`,
		`{"":{},"usage":{"":1,"output_tokens":2}}`, "{\"usage\":{\"output_to\u212aens\":1}}", `{"usage":{"output_tokens":1,"x":"\\"}}`,
		"{\"usage\":{\"output_tokens\":1,\"x\":\"\x01\"}}", "{\"usage\":{\"output_tokens\":1,\"x\":\"\xff\"}}",
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, inMessage bool) {
		got, ok := eventCounts(data, inMessage)
		want, wantOK := jsonEventCounts(data, inMessage)
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("%q (in message %v): %+v ok %v; encoding/json reads %+v ok %v", data, inMessage, got, ok, want, wantOK)
		}
	})
}
