package proxy

import "testing"

// BenchmarkPassthroughEvent is one typical delta event through each
// pass-through adapter (and an Anthropic stream's two usage events): what relaying an event costs the gateway beyond
// the write (the usage and end checks, the count of output relayed).
func BenchmarkPassthroughEvent(b *testing.B) {
	for _, bc := range []struct {
		name string
		ad   streamAdapter
		ev   string
	}{
		{"openai", &openAIPassthrough{}, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o",` +
			`"system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"word a "},"logprobs":null,"finish_reason":null}]}` + "\n\n"},
		{"anthropic", &anthropicPassthrough{}, "event: content_block_delta\n" +
			`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"word a "}}` + "\n\n"},
		{"anthropic-start", &anthropicPassthrough{}, "event: message_start\ndata: " + messageStartData + "\n\n"},
		{"anthropic-delta", &anthropicPassthrough{}, "event: message_delta\ndata: " + messageDeltaData + "\n\n"},
		{"responses", &responsesPassthrough{}, "event: response.output_text.delta\n" +
			`data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"word a ","logprobs":[]}` + "\n\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ev := []byte(bc.ev)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.ad.event(ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEventCounts reads an Anthropic stream's two usage events by
// hand (eventCounts) and with encoding/json (what the adapter did before).
func BenchmarkEventCounts(b *testing.B) {
	for _, read := range []struct {
		name string
		fn   func([]byte, bool) (anthropicCounts, bool)
	}{{"hand", eventCounts}, {"encoding-json", jsonEventCounts}} {
		b.Run(read.name, func(b *testing.B) {
			start, delta := []byte(messageStartData), []byte(messageDeltaData)
			b.ReportAllocs()
			for b.Loop() {
				read.fn(start, true)
				read.fn(delta, false)
			}
		})
	}
}
