package translate

import "fmt"

// A whole answer (not streamed) goes through a neutral form, as requests
// and streams do: one reader per upstream protocol (readChatBody,
// readMessagesBody, readGeminiBody, readConverseBody) and one writer per
// caller protocol (writeChatAnswerBody, writeMessagesAnswerBody,
// writeResponsesAnswer), so a new protocol adds a reader or a writer, not a
// converter for every pair (see Answer). The wire is read and
// written by hand where a benchmark showed it pays (an Anthropic
// answer read, see stream_read_messages_fast.go; a chat completion written,
// see answer_write_chat_fast.go), through decode and
// marshal elsewhere.

// answer is an upstream's answer in no protocol's words, but for its
// content: its parts (partText, partThinking, partRedacted, partRefusal and
// partCall, in order) travel beside it, so that the room made for them on
// the caller's stack stays there (escape analysis would move it to the heap
// with the strings a writer copies out of an answer that held them).
type answer struct {
	id, model string // the upstream's; each writer derives its own id from id
	created   int64  // the upstream's creation time, 0 if it gave none
	stop      stopKind
	usage     Usage
}

// answerParts is room for an answer's parts: it has a few (text and
// tool calls between them, thinking ahead of them).
type answerParts [8]part

// readChatBody reads an OpenAI chat completion (see readChatAnswer).
func readChatBody(body []byte, parts []part) (answer, []part, error) {
	var resp chatResponse
	if err := decode(body, &resp); err != nil {
		return answer{}, nil, fmt.Errorf("translate: openai answer: %w", err)
	}
	return readChatAnswer(&resp, parts)
}

// readMessagesBody reads an Anthropic answer (see readMessagesAnswer).
func readMessagesBody(body []byte, parts []part) (answer, []part, error) {
	var resp messagesResponse
	if err := decodeMessagesResponse(body, &resp); err != nil {
		return answer{}, nil, fmt.Errorf("translate: anthropic answer: %w", err)
	}
	return readMessagesAnswer(&resp, parts)
}

// writeChatAnswerBody writes a chat completion (see writeChatAnswer).
func writeChatAnswerBody(a *answer, parts []part, now int64) ([]byte, error) {
	out := writeChatAnswer(a, parts, now)
	return marshalChatResponse(&out)
}

// writeMessagesAnswerBody writes an Anthropic answer (see
// writeMessagesAnswer).
func writeMessagesAnswerBody(a *answer, parts []part, _ int64) ([]byte, error) {
	return marshal(writeMessagesAnswer(a, parts))
}
