package handlers

import (
	"fmt"
	"net/http"
	"strconv"

	"gateway/models"
)

// pathID is the {id} of the URL; one that is not a positive integer names
// nothing, so it is a 404 like an id that does not exist.
func pathID(r *http.Request, what string) (int64, error) {
	raw := r.PathValue("id")
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id <= 0 {
		return 0, &userError{kind: models.ErrNotFound, msg: fmt.Sprintf("no %s with id %q", what, raw)}
	}
	return id, nil
}
