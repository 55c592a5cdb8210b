package translate

// Writers of complete SSE events. Each appends one event to dst. The values
// written by the stream converters hold only strings, numbers and constant
// JSON, so marshalling them cannot fail (see mustMarshal).

// appendChatEvent appends an OpenAI event: "data: {json}\n\n".
func appendChatEvent(dst []byte, v any) []byte {
	dst = append(dst, "data: "...)
	dst = append(dst, mustMarshal(v)...)
	return append(dst, "\n\n"...)
}

// chatDone is the line that ends every OpenAI stream that ends well. A
// stream that ends with an error event does not get it, so that a client
// that waits for it knows the answer is incomplete.
const chatDone = "data: [DONE]\n\n"

// appendMessagesEvent appends an Anthropic event: "event: name\ndata: {json}\n\n".
func appendMessagesEvent(dst []byte, name string, v any) []byte {
	dst = append(dst, "event: "...)
	dst = append(dst, name...)
	dst = append(dst, "\ndata: "...)
	dst = append(dst, mustMarshal(v)...)
	return append(dst, "\n\n"...)
}
