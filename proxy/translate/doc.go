// Package translate converts between the wire protocols the gateway speaks:
// OpenAI Chat Completions (Chat), Anthropic Messages (Messages) and OpenAI
// Responses (Responses) as callers' protocols; Chat, Messages, Google's
// Gemini API (Gemini, whose bodies Vertex AI shares) and Amazon Bedrock's
// Converse API (Converse) as upstreams'. It translates requests, whole
// answers, error bodies and SSE streams. It does no I/O, keeps no package
// state but a pool of scratch room and imports only the standard library,
// go-json-experiment and upstreamerr (which reads and classifies upstream
// errors for it as for the router), so the proxy can call it on the hot path
// and tests can call it without a server.
//
// Four calls make up the API, each from one protocol to another:
//
//   - Request(from, to, body, upstreamModel, Options) translates a caller's
//     request for an upstream;
//   - Answer(from, to, body) translates an upstream's whole answer for the
//     caller, and reads its usage;
//   - NewStream(from, to, Options) gives a Stream that translates an
//     upstream's SSE stream for the caller one event at a time;
//   - Error(to, status, body) reshapes an upstream's error body, of any
//     protocol, for the caller.
//
// Options carry what a direction needs beyond the body: IncludeUsage (a chat
// upstream asked for a stream's usage; a chat caller's usage chunk) and
// InputEstimate (message_start's input count for an Anthropic caller).
//
// Every translation goes through a neutral form, read by one reader of the
// source protocol and written by one writer of the target's: request (see
// request.go), answer (answer.go) and the events of a stream (stream.go).
// A protocol is a row of protocols (protocol.go) naming its readers and
// writers; a missing one is a direction it does not take, for which the
// calls return ErrUnsupported. So a new protocol adds its readers and
// writers, not a converter for every pair. Files are named by stage and
// protocol:
//
//   - request_read_<protocol>.go reads a caller's request into the neutral
//     request; request_write_<protocol>.go writes it for an upstream;
//   - answer_read_<protocol>.go reads an upstream's answer;
//     answer_write_<protocol>.go writes it for a caller;
//   - stream_read_<protocol>.go reads an upstream's events;
//     stream_write_<protocol>.go writes a caller's;
//   - <protocol>_wire.go (bedrock_wire.go for Converse) holds the
//     protocol's JSON shapes;
//   - a _fast.go beside a stage file reads or writes that stage's JSON by
//     hand, where BenchmarkHandJSON or BenchmarkHandStreams shows it pays
//     (the figures are in each file); json_read.go and json_write.go hold
//     the JSON primitives they share. Each falls back to encoding/json for
//     what it does not expect, and fuzz tests hold it to encoding/json
//     byte for byte.
//
// To add a caller's protocol (a front door), write its request reader, its
// answer writer, its stream writer and its error writer, and name them in
// its row of protocols; to add an upstream's, its request writer, its
// answer reader and its stream reader. Gemini, today an upstream's protocol
// only, becomes a front door with request_read_gemini.go,
// answer_write_gemini.go, stream_write_gemini.go and an error writer.
//
// The Responses API (Codex speaks only it) is a caller's protocol here.
// What needs stored state (previous_response_id, item_reference, store:
// true, conversation) is refused: the proxy keeps the state
// (proxy/responses_store.go) and hands over a request expanded into the
// whole conversation, with store: false. Anthropic thinking goes out as
// reasoning items whose encrypted_content carries the signed block, and
// comes back in later requests as that block.
//
// Gemini's tools' schemas are written in its OpenAPI subset (see
// geminiSchema); its calls have no ids: the package makes them, and carries
// in them the thoughtSignature that Gemini 3 wants back with its call (see
// geminiCallID). Converse keeps an Anthropic caller's cache breakpoints,
// signed thinking, budget and top_k, which readMessagesRequest reads into
// the neutral request and the other writers leave out; the proxy decodes
// Bedrock's AWS event stream and hands each event to a Stream by its type.
//
// Token counts are reported in OpenAI's meaning: see Usage.
//
// What has no counterpart in the other protocol is dropped on purpose; the
// one list of those fields, with the reason for each, is droppedFields in
// dropped.go. Anything that would change the shape or the meaning of the
// answer (n > 1, audio input, legacy functions) is refused with a
// *RequestError instead.
package translate
