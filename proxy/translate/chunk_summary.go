package translate

import "encoding/json"

// ChunkSummary is what a relay of OpenAI chunks, passed on unchanged, needs
// to know of one: whether it ends a choice and what usage it reports.
type ChunkSummary struct {
	Finished  bool // a choice has a finish_reason (not null, not "")
	NoChoices bool // choices is empty, null or absent: a usage-only chunk
	Usage     Usage
	HasUsage  bool // usage is an object
}

// SummarizeChatChunk reads the summary of an OpenAI chunk; !ok when it is
// not a chunk encoding/json could read. The common shapes are read by hand
// (see stream_read_chat_fast.go), the rest as summarizeChatChunk reads them, and
// FuzzSummarizeChatChunk holds the two to the same answer.
func SummarizeChatChunk(data []byte) (s ChunkSummary, ok bool) {
	var r jsonReader
	var c fastChunk
	if r.readChunk(data, false, &c) {
		return ChunkSummary{
			Finished:  c.hasChoice && c.choice.FinishReason != "",
			NoChoices: !c.hasChoice,
			Usage:     c.usage.usage(),
			HasUsage:  c.hasUsage,
		}, true
	}
	return summarizeChatChunk(data)
}

// summarizeChatChunk is SummarizeChatChunk with encoding/json.
func summarizeChatChunk(data []byte) (s ChunkSummary, ok bool) {
	var chunk struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"` // as chatStreamChoice has it
		} `json:"choices"`
		Usage json.RawMessage `json:"usage"`
	}
	if json.Unmarshal(data, &chunk) != nil {
		return ChunkSummary{}, false
	}
	for _, c := range chunk.Choices {
		s.Finished = s.Finished || c.FinishReason != ""
	}
	s.NoChoices = len(chunk.Choices) == 0
	if string(chunk.Usage) != "null" {
		s.Usage, s.HasUsage = ChatUsage(chunk.Usage)
	}
	return s, true
}
