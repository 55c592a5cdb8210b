package translate

import (
	"encoding/json"
	"testing"
)

// BenchmarkHandJSON holds each hand reader and writer (the *_fast.go
// files) to what it replaces: decode (go-json-experiment's v1 API, which
// a refused body falls back to), encoding/json's Unmarshal, and marshal
// (encoding/json's Encoder). A hand path stays only while it pays.
func BenchmarkHandJSON(b *testing.B) {
	claudeCode := readTestdata(b, "testdata/messages_to_chat/claude_code.in.json")
	chatBody := readTestdata(b, "testdata/chat_to_messages/tool_round_trip.in.json")
	answerBody := readTestdata(b, "testdata/response_messages_to_chat/tool_use_parallel.in.json")
	b.Run("request_read_messages/hand", func(b *testing.B) {
		for b.Loop() {
			var req messagesRequest
			if err := decodeMessagesRequest(claudeCode, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	benchDecoders[messagesRequest](b, "request_read_messages", claudeCode)
	b.Run("request_read_chat/hand", func(b *testing.B) {
		for b.Loop() {
			var req chatRequest
			if err := decodeChatRequest(chatBody, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	benchDecoders[chatRequest](b, "request_read_chat", chatBody)
	b.Run("answer_read_messages/hand", func(b *testing.B) {
		for b.Loop() {
			var resp messagesResponse
			if err := decodeMessagesResponse(answerBody, &resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	benchDecoders[messagesResponse](b, "answer_read_messages", answerBody)

	chatOut, err := chatRequestOutOf(claudeCode, "gpt", true)
	if err != nil {
		b.Fatal(err)
	}
	benchWriters(b, "request_write_chat", func() ([]byte, error) { return marshalChatRequest(chatOut) }, chatOut)
	var chatReq chatRequest
	if err := decode(chatBody, &chatReq); err != nil {
		b.Fatal(err)
	}
	messagesOut, err := messagesRequestFromChat(&chatReq, "claude")
	if err != nil {
		b.Fatal(err)
	}
	benchWriters(b, "request_write_messages", func() ([]byte, error) { return marshalMessagesRequest(&messagesOut) }, &messagesOut)
	var resp messagesResponse
	if err := decode(answerBody, &resp); err != nil {
		b.Fatal(err)
	}
	completion, _, err := chatCompletionOf(&resp, 1)
	if err != nil {
		b.Fatal(err)
	}
	benchWriters(b, "answer_write_chat", func() ([]byte, error) { return marshalChatResponse(&completion) }, &completion)
}

func benchDecoders[T any](b *testing.B, name string, body []byte) {
	b.Run(name+"/decode", func(b *testing.B) {
		for b.Loop() {
			var v T
			if err := decode(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/encoding_json", func(b *testing.B) {
		for b.Loop() {
			var v T
			if err := json.Unmarshal(body, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func benchWriters(b *testing.B, name string, hand func() ([]byte, error), v any) {
	b.Run(name+"/hand", func(b *testing.B) {
		for b.Loop() {
			if _, err := hand(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/encoding_json", func(b *testing.B) {
		for b.Loop() {
			if _, err := marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHandStreams converts whole streams with the hand event readers
// and writers (stream_*_fast.go) and with encoding/json alone.
func BenchmarkHandStreams(b *testing.B) {
	chat := benchChatStream()
	messages := benchMessagesStream()
	for _, tc := range []struct {
		name     string
		from, to Protocol
	}{
		{"chat_to_messages", Chat, Messages},
		{"chat_to_responses", Chat, Responses},
		{"messages_to_chat", Messages, Chat},
		{"messages_to_responses", Messages, Responses},
	} {
		for _, general := range []bool{false, true} {
			name := tc.name + "/hand"
			if general {
				name = tc.name + "/encoding_json"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					s := mustStream(tc.from, tc.to, Options{IncludeUsage: true, InputEstimate: benchEstimate})
					setGeneral(s, general)
					if tc.from == Chat {
						for _, ev := range chat {
							if _, err := s.Event("", ev); err != nil {
								b.Fatal(err)
							}
						}
						continue
					}
					for _, ev := range messages {
						if _, err := s.Event(ev[0], []byte(ev[1])); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
		}
	}
}
