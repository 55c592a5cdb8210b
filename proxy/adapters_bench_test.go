package proxy

import "testing"

// BenchmarkPassthroughEvent is one typical delta event through each
// pass-through adapter: what relaying an event costs the gateway beyond
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
