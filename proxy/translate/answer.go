package translate

import (
	"fmt"
	"time"
)

// A whole answer (not streamed) goes through a neutral form, as requests
// and streams do: one reader per upstream protocol (readChatAnswer,
// readMessagesAnswer) and one writer per caller protocol (writeChatAnswer,
// writeMessagesAnswer, writeResponsesAnswer), so a new protocol adds a
// reader and a writer, not a converter for every pair. The wire is read and
// written by hand where a benchmark showed it pays (fastanswer.go: an
// Anthropic answer read, a chat completion written), through decode and
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

// MessagesResponseToChat translates an Anthropic non-streaming answer into
// an OpenAI chat completion, and returns its usage (see readMessagesAnswer
// and writeChatAnswer).
func MessagesResponseToChat(body []byte) ([]byte, Usage, error) {
	return messagesResponseToChat(body, time.Now().Unix())
}

func messagesResponseToChat(body []byte, created int64) ([]byte, Usage, error) {
	var resp messagesResponse
	if err := decodeMessagesResponse(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: anthropic answer: %w", err)
	}
	out, usage, err := chatCompletionAnswer(&resp, created)
	if err != nil {
		return nil, Usage{}, err
	}
	b, err := marshalChatResponse(&out)
	return b, usage, err
}

// chatCompletionAnswer builds the chat completion answering resp.
func chatCompletionAnswer(resp *messagesResponse, created int64) (chatResponseOut, Usage, error) {
	var room answerParts
	a, parts, err := readMessagesAnswer(resp, room[:0])
	if err != nil {
		return chatResponseOut{}, Usage{}, err
	}
	return writeChatAnswer(&a, parts, created), a.usage, nil
}

// ChatResponseToMessages translates an OpenAI chat completion into an
// Anthropic answer, and returns its usage (see readChatAnswer and
// writeMessagesAnswer). Only the first choice is read (requests with n > 1
// are refused).
func ChatResponseToMessages(body []byte) ([]byte, Usage, error) {
	var resp chatResponse
	if err := decode(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: openai answer: %w", err)
	}
	out, usage, err := anthropicAnswer(&resp)
	if err != nil {
		return nil, Usage{}, err
	}
	b, err := marshal(out)
	return b, usage, err
}

// anthropicAnswer builds the Anthropic answer to resp.
func anthropicAnswer(resp *chatResponse) (messagesResponseOut, Usage, error) {
	var room answerParts
	a, parts, err := readChatAnswer(resp, room[:0])
	if err != nil {
		return messagesResponseOut{}, Usage{}, err
	}
	return writeMessagesAnswer(&a, parts), a.usage, nil
}

// ChatResponseToResponses translates an OpenAI chat completion into a
// Responses "response" object, and returns its usage (see
// readChatAnswer and writeResponsesAnswer). Only the first choice is
// read.
func ChatResponseToResponses(body []byte) ([]byte, Usage, error) {
	return chatResponseToResponses(body, time.Now().Unix())
}

func chatResponseToResponses(body []byte, now int64) ([]byte, Usage, error) {
	var resp chatResponse
	if err := decode(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: openai answer: %w", err)
	}
	var room answerParts
	a, parts, err := readChatAnswer(&resp, room[:0])
	if err != nil {
		return nil, Usage{}, err
	}
	return writeResponsesAnswer(&a, parts, now)
}

// MessagesResponseToResponses translates an Anthropic non-streaming answer
// into a Responses "response" object, and returns its usage (see
// readMessagesAnswer and writeResponsesAnswer).
func MessagesResponseToResponses(body []byte) ([]byte, Usage, error) {
	return messagesResponseToResponses(body, time.Now().Unix())
}

func messagesResponseToResponses(body []byte, created int64) ([]byte, Usage, error) {
	var resp messagesResponse
	if err := decodeMessagesResponse(body, &resp); err != nil {
		return nil, Usage{}, fmt.Errorf("translate: anthropic answer: %w", err)
	}
	var room answerParts
	a, parts, err := readMessagesAnswer(&resp, room[:0])
	if err != nil {
		return nil, Usage{}, err
	}
	return writeResponsesAnswer(&a, parts, created)
}
