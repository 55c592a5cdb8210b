package translate

import (
	"testing"
)

func TestSummarizeChatChunk(t *testing.T) {
	for _, tc := range []struct {
		chunk string
		want  ChunkSummary
		ok    bool
	}{
		{`{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`, ChunkSummary{}, true},
		{`{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":320,"completion_tokens":20,"total_tokens":340}}`,
			ChunkSummary{Finished: true, Usage: Usage{InputTokens: 320, OutputTokens: 20}, HasUsage: true}, true},
		{`{"id":"c","choices":[],"usage":{"prompt_tokens":25,"completion_tokens":15,"prompt_tokens_details":{"cached_tokens":5,"cache_write_tokens":2}}}`,
			ChunkSummary{NoChoices: true, Usage: Usage{InputTokens: 25, OutputTokens: 15, CacheReadTokens: 5, CacheWriteTokens: 2}, HasUsage: true}, true},
		{`{"id":"c","choices":[{"index":0,"delta":{}}],"usage":null}`, ChunkSummary{}, true},
		{`{"choices":[{"index":0,"delta":{},"finish_reason":""}]}`, ChunkSummary{}, true},
		// Two choices, the second finished: the general path.
		{`{"choices":[{"index":0,"delta":{}},{"index":1,"delta":{},"finish_reason":"length"}]}`, ChunkSummary{Finished: true}, true},
		{`{"usage":"none"}`, ChunkSummary{NoChoices: true}, true},
		{`{"choices":[{"finish_reason":5}]}`, ChunkSummary{}, false},
		{`not json`, ChunkSummary{}, false},
	} {
		got, ok := SummarizeChatChunk([]byte(tc.chunk))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s:\ngot  %+v %v\nwant %+v %v", tc.chunk, got, ok, tc.want, tc.ok)
		}
		checkChunkSummary(t, []byte(tc.chunk))
	}
}

// FuzzSummarizeChatChunk: the hand-read summary is encoding/json's.
func FuzzSummarizeChatChunk(f *testing.F) {
	for _, s := range readerSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkChunkSummary(t, data)
	})
}

func checkChunkSummary(t *testing.T, data []byte) {
	t.Helper()
	got, ok := SummarizeChatChunk(data)
	want, wantOK := summarizeChatChunk(data)
	if got != want || ok != wantOK {
		t.Errorf("%q: hand %+v %v, encoding/json %+v %v", data, got, ok, want, wantOK)
	}
}
