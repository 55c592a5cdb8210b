// Package translate converts between the OpenAI Chat Completions API and the
// Anthropic Messages API: requests, answers, error bodies and SSE streams,
// both ways. It does no I/O, keeps no package state and imports only the
// standard library and upstreamerr (which reads and classifies upstream
// errors for it as for the router), so the proxy can call it on the hot path
// and tests can call it without a server.
//
// Names say the direction, from the upstream's protocol to the caller's or
// from the caller's request to the upstream's:
//
//   - ChatToMessages turns an OpenAI chat request into an Anthropic one;
//     MessagesToChat does the reverse. Each is one reader of the caller's
//     protocol and one writer of the upstream's, with a neutral request
//     between them (see request.go): readChatRequest,
//     readMessagesRequest and readResponsesRequest; writeChatRequest and
//     writeMessagesRequest.
//   - MessagesResponseToChat turns an Anthropic answer into an OpenAI one for
//     an OpenAI caller; ChatResponseToMessages does the reverse. Each is
//     one reader of the upstream's protocol and one writer of the caller's,
//     with a neutral answer between them (see answer.go): readChatAnswer
//     and readMessagesAnswer; writeChatAnswer, writeMessagesAnswer and
//     writeResponsesAnswer.
//   - NewMessagesToChatStream reads Anthropic events and writes OpenAI
//     chunks; NewChatToMessagesStream reads OpenAI chunks and writes
//     Anthropic events. Each is a Stream: one reader of the upstream's
//     protocol and one writer of the caller's, with neutral events between
//     them (see stream.go).
//   - ErrorToChat and ErrorToMessages reshape an upstream error body, read
//     by the gateway's one classifier, package upstreamerr; so is an error
//     event inside a stream.
//
// The OpenAI Responses API (Codex speaks only it) is a third caller
// protocol, translated one way: ResponsesToChat and ResponsesToMessages turn
// a Responses request into a chat or an Anthropic request;
// ChatResponseToResponses, MessagesResponseToResponses,
// NewChatToResponsesStream and NewMessagesToResponsesStream turn the answer
// back into a response object or the Responses event stream; ErrorToResponses reshapes errors and
// ResponsesUsage reads usage. What needs stored state (previous_response_id,
// item_reference, store: true, conversation) is refused here: the proxy keeps
// the state (proxy/responses_store.go) and hands over a request expanded into
// the whole conversation, with store: false. Anthropic thinking goes out
// as reasoning items whose encrypted_content carries the signed block, and
// comes back in later requests as that block.
//
// Google's Gemini (the Gemini API's generateContent and
// streamGenerateContent?alt=sse, whose bodies Vertex AI shares) is an
// upstream protocol for all three callers: ChatToGemini, MessagesToGemini
// and ResponsesToGemini write a caller's request as Gemini's
// (writeGeminiRequest; tools' schemas in Gemini's OpenAPI subset, see
// geminiSchema); GeminiResponseToChat, GeminiResponseToMessages and
// GeminiResponseToResponses read its answer (readGeminiAnswer), and
// NewGeminiToChatStream, NewGeminiToMessagesStream and
// NewGeminiToResponsesStream its stream (geminiReader). Gemini's calls have
// no ids: the package makes them, and carries in them the thoughtSignature
// that Gemini 3 wants back with its call (see geminiCallID).
//
// Amazon Bedrock's Converse API is an upstream protocol of its own, with
// one writer and two readers over the same neutral forms:
// ChatToConverse, MessagesToConverse and ResponsesToConverse write a
// caller's request as a Converse body (writeConverseRequest; it keeps an
// Anthropic caller's cache breakpoints, signed thinking, budget and top_k,
// which readMessagesRequest reads into the neutral request and the other
// writers leave out); ConverseResponseToChat, ConverseResponseToMessages
// and ConverseResponseToResponses read an answer (readConverseAnswer);
// NewConverseToChatStream, NewConverseToMessagesStream and
// NewConverseToResponsesStream read a ConverseStream whose AWS event
// stream the proxy has decoded (converseReader).
//
// Token counts are reported in OpenAI's meaning: see Usage.
//
// What has no counterpart in the other protocol is dropped on purpose; the
// one list of those fields, with the reason for each, is droppedFields in
// dropped.go. Anything that would change the shape or the meaning of the
// answer (n > 1, audio input, legacy functions) is refused with a
// *RequestError instead.
package translate
