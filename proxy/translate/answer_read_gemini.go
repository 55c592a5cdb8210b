package translate

import (
	"errors"
	"fmt"
	"time"
)

// readGeminiBody reads a Gemini GenerateContentResponse (see
// readGeminiAnswer).
func readGeminiBody(body []byte, parts []part) (answer, []part, error) {
	var resp geminiResponse
	if err := decode(body, &resp); err != nil {
		return answer{}, nil, fmt.Errorf("translate: gemini answer: %w", err)
	}
	return readGeminiAnswer(&resp, parts)
}

// readGeminiAnswer reads a Gemini answer's first candidate, its parts
// appended to parts: texts as text parts, thoughts (thought: true) as
// thinking parts, functionCalls as call parts with ids made by geminiCallID
// (carrying the part's thoughtSignature) and their args as arguments text;
// other parts, and the signatures of texts, are dropped. The stop reason is
// geminiStop's. A prompt Gemini blocked gets no candidate: it is read as a
// refusal (see blockedPrompt). Usage: promptTokenCount (with the tokens of
// tool-use prompts) is the input, of which cachedContentTokenCount was read
// from the cache; candidatesTokenCount and thoughtsTokenCount the output,
// the latter the reasoning tokens. The id is responseId, the model
// modelVersion, the creation time Vertex AI's createTime.
func readGeminiAnswer(resp *geminiResponse, parts []part) (answer, []part, error) {
	if !isNull(resp.Error) {
		return answer{}, nil, errors.New("translate: gemini answer is an error, not a response")
	}
	a := answer{id: resp.ResponseID, model: resp.ModelVersion, created: geminiCreated(resp.CreateTime),
		usage: resp.UsageMetadata.usage()}
	if len(resp.Candidates) == 0 {
		if f := resp.PromptFeedback; f != nil && f.BlockReason != "" {
			a.stop = stopRefusal
			return a, append(parts, part{kind: partRefusal, text: blockedPrompt(f)}), nil
		}
		return answer{}, nil, errors.New("translate: gemini answer has no candidates")
	}
	c := &resp.Candidates[0]
	var tag string
	calls := 0
	if c.Content != nil {
		for i := range c.Content.Parts {
			switch p := &c.Content.Parts[i]; {
			case p.FunctionCall != nil:
				if tag == "" {
					tag = geminiTag(resp.ResponseID)
				}
				parts = append(parts, part{kind: partCall, id: geminiCallID(tag, calls, p.ThoughtSignature),
					name: p.FunctionCall.Name, text: toolArguments(p.FunctionCall.Args)})
				calls++
			case p.Text == "": // a signature's carrier, or a part of another kind
			case p.Thought:
				parts = append(parts, part{kind: partThinking, text: p.Text})
			default:
				parts = append(parts, part{kind: partText, text: p.Text})
			}
		}
	}
	a.stop = geminiStop(c.FinishReason, calls > 0)
	return a, parts, nil
}

// geminiStop reads a finishReason: MAX_TOKENS is a stop for length; the
// reasons of Gemini's filters (safety, its block lists, prohibited content,
// personal data, recitation, and their image counterparts) a refusal; any
// other (STOP, and MALFORMED_FUNCTION_CALL, OTHER, … which have no
// counterpart) the end of the turn, or, after calls, a stop for tools.
func geminiStop(reason string, calledTools bool) stopKind {
	switch reason {
	case "MAX_TOKENS":
		return stopLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII",
		"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION":
		return stopRefusal
	}
	if calledTools {
		return stopTool
	}
	return stopEnd
}

// blockedPrompt words the refusal of a prompt Gemini blocked.
func blockedPrompt(f *geminiPromptFeedback) string {
	text := "Gemini blocked the prompt (" + f.BlockReason + ")"
	if f.BlockReasonMessage != "" {
		text += ": " + f.BlockReasonMessage
	}
	return text
}

// geminiCreated reads Vertex AI's createTime; 0 when there is none.
func geminiCreated(createTime string) int64 {
	t, err := time.Parse(time.RFC3339Nano, createTime)
	if err != nil {
		return 0
	}
	return t.Unix()
}
