package proxy

import (
	"net/http"
	"strconv"

	"gateway/proxy/jsonscan"
)

// bytesPerToken is the estimate's ratio: English prose and JSON run at about
// four bytes a token in the tokenizers of both vendors.
const bytesPerToken = 4

// estimateTokens answers count_tokens for a member whose provider has no such
// endpoint (OpenAI has none): an honest estimate, never a call. It counts the
// bytes of the request's system, messages and tools as sent (JSON
// punctuation included, which errs on the high side) at bytesPerToken, and
// says so in a header.
func (rq *routing) estimateTokens(m *member, upstreamModel string, req *chatRequest) *failure {
	n := 0
	sc := jsonscan.NewObject(req.body, req.open)
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		if jsonscan.KeyIs(key, "system") || jsonscan.KeyIs(key, "messages") || jsonscan.KeyIs(key, "tools") {
			n += val.End - val.Start
		}
	}
	tokens := (n + bytesPerToken - 1) / bytesPerToken
	body := []byte(`{"input_tokens":` + strconv.Itoa(tokens) + `}`)
	h := rq.w.Header()
	rq.x.setGatewayHeaders(h)
	h.Set("X-Gateway-Token-Count", "estimate")
	h.Set("Content-Type", "application/json")
	rq.sendWhole(http.StatusOK, body)
	return nil
}
