// Package translate converts between the OpenAI Chat Completions API and the
// Anthropic Messages API: requests, answers, error bodies and SSE streams,
// both ways. It does no I/O, keeps no package state and imports only the
// standard library, so the proxy can call it on the hot path and tests can
// call it without a server.
//
// Names say the direction, from the upstream's protocol to the caller's or
// from the caller's request to the upstream's:
//
//   - ChatToMessages turns an OpenAI chat request into an Anthropic one;
//     MessagesToChat does the reverse.
//   - MessagesResponseToChat turns an Anthropic answer into an OpenAI one for
//     an OpenAI caller; ChatResponseToMessages does the reverse.
//   - MessagesToChatStream reads Anthropic events and writes OpenAI chunks;
//     ChatToMessagesStream reads OpenAI chunks and writes Anthropic events.
//   - ErrorToChat and ErrorToMessages reshape an upstream error body;
//     ClassifyError tells the fallback kinds apart.
//
// Token counts are reported in OpenAI's meaning: see Usage.
//
// What has no counterpart in the other protocol is dropped on purpose; the
// one list of those fields, with the reason for each, is droppedFields in
// dropped.go. Anything that would change the shape or the meaning of the
// answer (n > 1, audio input, legacy functions) is refused with a
// *RequestError instead.
package translate
