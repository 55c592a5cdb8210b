package proxy

import (
	"encoding/json"
	"net/http"
)

// modelList is OpenAI's list shape for GET /v1/models.
type modelList struct {
	Object string       `json:"object"`
	Data   []modelEntry `json:"data"`
}

type modelEntry struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// listModels serves GET /v1/models: the public names the caller's key may use,
// wildcard routes as their pattern ("anthropic/*") so that a caller can see
// which prefixes are open.
func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	x := s.begin(w, "/v1/models", protoOpenAI)
	defer s.finish(w, x) // x carries no key: listing is not written to the request log
	snap := s.snap.Load()
	if snap == nil {
		s.fail(w, x, errNotReady())
		return
	}
	key, err := snap.authenticate(r.Header, x.start)
	if err != nil {
		s.fail(w, x, err)
		return
	}
	body, err := json.Marshal(snap.modelList(key))
	if err != nil {
		s.fail(w, x, errInternal(err))
		return
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *snapshot) modelList(key *virtualKey) modelList {
	list := modelList{Object: "list", Data: []modelEntry{}}
	for _, p := range s.pools {
		if key.allows(p.Name) {
			list.Data = append(list.Data, modelEntry{ID: p.Name, Object: "model", Created: p.Created.Unix(), OwnedBy: "gateway"})
		}
	}
	return list
}
